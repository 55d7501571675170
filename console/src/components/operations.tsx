/** The operations started from this console: running, and how the finished ones ended. */
import { useEffect, useState } from "preact/hooks";
import { currentInvocations, onInvocationsChange } from "../operations.ts";

export function Operations() {
  const [, setTick] = useState(0);
  useEffect(() => onInvocationsChange(() => setTick((t) => t + 1)), []);
  const invocations = currentInvocations();
  if (invocations.length === 0) return null;
  return (
    <section aria-label="Operations" class="operations">
      <h2>Operations</h2>
      <table>
        <thead>
          <tr>
            <th>Operation</th>
            <th>State</th>
            <th>Started</th>
            <th>Messages</th>
          </tr>
        </thead>
        <tbody>
          {invocations.map((inv) => (
            <tr key={inv.key}>
              <th scope="row" title={inv.submodelId}>
                {inv.path}
              </th>
              <td class={inv.state === "Running" ? "running" : ""}>{inv.state}</td>
              <td>{inv.started.toLocaleTimeString()}</td>
              <td>{inv.message ?? ""}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
