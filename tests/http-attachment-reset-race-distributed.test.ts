import { attachmentResetRaceSuite, lostUploadSuite } from "./http/attachment-reset-race-suite.ts";

attachmentResetRaceSuite("distributed");
lostUploadSuite();
