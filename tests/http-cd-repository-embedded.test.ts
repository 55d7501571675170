import { conceptDescriptionSuite } from "./http/cd-repository-suite.ts";

conceptDescriptionSuite("embedded");
