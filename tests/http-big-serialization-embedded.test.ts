import { bigSerializationSuite } from "./http/big-serialization-suite.ts";

bigSerializationSuite("embedded");
