import { hardeningSuite } from "./http/hardening-suite.ts";

hardeningSuite("distributed");
