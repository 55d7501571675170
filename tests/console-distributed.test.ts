import { consoleSuite } from "./console/console-suite.ts";

consoleSuite("distributed");
