import { sliceSuite } from "./http/slice-suite.ts";

sliceSuite("distributed");
