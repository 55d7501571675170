/** A running MQTT publishing of change events (docs/events-mqtt.md). */
export interface EventPublishing {
  /** The broker, without credentials (for the ready line). */
  readonly broker: string;
  stop(): Promise<void>;
}
