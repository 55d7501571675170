import { swaggerUiSuite } from "./http/swagger-ui-suite.ts";

swaggerUiSuite("embedded");
