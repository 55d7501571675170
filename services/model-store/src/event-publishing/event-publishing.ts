/** A running MQTT publishing of change events (docs/events-mqtt.md). */
export interface EventPublishing {
  stop(): Promise<void>;
}
