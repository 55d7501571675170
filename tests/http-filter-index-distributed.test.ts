import { filterIndexSuite } from "./http/filter-index-suite.ts";

filterIndexSuite("distributed");
