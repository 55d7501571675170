import { authenticationSuite } from "./http/authentication-suite.ts";

authenticationSuite("embedded");
