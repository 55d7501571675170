import { attachmentResetRaceSuite } from "./http/attachment-reset-race-suite.ts";

attachmentResetRaceSuite("embedded");
