import { shellRepositorySuite } from "./http/shell-repository-suite.ts";

shellRepositorySuite("embedded");
