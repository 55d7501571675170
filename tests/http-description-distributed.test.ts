import { descriptionSuite } from "./http/description-suite.ts";

descriptionSuite("distributed");
