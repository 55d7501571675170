import { faultRedisSuite } from "./fault/redis-suite.ts";

faultRedisSuite({ secured: true });
