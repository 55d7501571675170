import { after, before, describe } from "node:test";
import { type RunningServer, startNats } from "../../../../tests/test-support/servers.ts";
import { eventBusContract } from "../test-support/index.ts";
import { connectNats } from "./connect-nats.ts";
import { createNatsEventBus } from "./nats-event-bus.ts";

const quiet = () => {};

describe("NATS event bus", () => {
  let server: RunningServer;
  before(async () => {
    server = await startNats();
  });
  after(async () => {
    await server?.stop();
  });

  // Two connections, as a publishing model-store and a subscribing gateway would have.
  eventBusContract("nats", async () => {
    const first = await connectNats({ url: server.url, name: "contract-1", onChange: quiet });
    const second = await connectNats({ url: server.url, name: "contract-2", onChange: quiet });
    const bus = createNatsEventBus({ connection: first, onSubscriberError: quiet });
    const bus2 = createNatsEventBus({ connection: second, onSubscriberError: quiet });
    return {
      bus,
      bus2,
      async close() {
        await bus.close();
        await bus2.close();
        await first.close();
        await second.close();
      },
    };
  });
});
