import { submodelSuperpathSuite } from "./http/submodel-superpath-suite.ts";

submodelSuperpathSuite("distributed");
