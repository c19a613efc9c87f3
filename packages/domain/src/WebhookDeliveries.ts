import * as Schema from "effect/Schema"
import { Timestamp } from "./Timestamp.js"

export class WebhookDelivery extends Schema.Class<WebhookDelivery>("WebhookDelivery")({
  id: Schema.UUID,
  eventId: Schema.UUID.annotations({ description: "Also sent as the Voiceagent-Event-Id header" }),
  eventType: Schema.String,
  url: Schema.String,
  attempts: Schema.Int,
  lastStatus: Schema.NullOr(Schema.Int).annotations({
    description: "HTTP status of the last attempt; null when it got none"
  }),
  lastError: Schema.NullOr(Schema.String),
  lastAttemptAt: Schema.NullOr(Timestamp),
  nextAttemptAt: Schema.NullOr(Timestamp).annotations({ description: "Null once delivered or given up" }),
  deliveredAt: Schema.NullOr(Timestamp),
  failedAt: Schema.NullOr(Timestamp).annotations({ description: "Set when every attempt failed" }),
  createdAt: Timestamp
}) {}
