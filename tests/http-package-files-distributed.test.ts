import { packageFilesSuite } from "./http/package-files-suite.ts";

packageFilesSuite("distributed");
