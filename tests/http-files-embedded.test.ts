import { filesSuite } from "./http/files-suite.ts";

filesSuite("embedded");
