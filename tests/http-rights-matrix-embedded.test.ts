import { rightsMatrixSuite } from "./http/rights-matrix-suite.ts";

rightsMatrixSuite("embedded");
