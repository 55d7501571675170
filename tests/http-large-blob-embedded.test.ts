import { largeBlobSuite } from "./http/large-blob-suite.ts";

largeBlobSuite("embedded");
