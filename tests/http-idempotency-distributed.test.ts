import { idempotencySuite } from "./http/idempotency-suite.ts";

idempotencySuite("distributed");
