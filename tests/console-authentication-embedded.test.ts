import { consoleAuthenticationSuite } from "./console/console-authentication-suite.ts";

consoleAuthenticationSuite("embedded");
