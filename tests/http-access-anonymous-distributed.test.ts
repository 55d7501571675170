import { anonymousAccessSuite } from "./http/anonymous-access-suite.ts";

anonymousAccessSuite("distributed");
