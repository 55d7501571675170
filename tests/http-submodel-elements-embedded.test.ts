import { submodelElementsSuite } from "./http/submodel-elements-suite.ts";

submodelElementsSuite("embedded");
