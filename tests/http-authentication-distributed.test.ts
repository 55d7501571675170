import { authenticationSuite } from "./http/authentication-suite.ts";

authenticationSuite("distributed");
