import { submodelRepositorySuite } from "./http/submodel-repository-suite.ts";

submodelRepositorySuite("embedded");
