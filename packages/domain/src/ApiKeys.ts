import * as Schema from "effect/Schema"
import { errorFields, type HttpError, httpError } from "./ApiError.js"
import { AgentId, ApiKeyId } from "./Ids.js"
import { ACCOUNT_LIMITS } from "./Limits.js"
import { Timestamp } from "./Timestamp.js"

export const WebhookUrl = Schema.Trim.pipe(
  Schema.filter((s) => {
    if (s.length > 2048) return false
    try {
      const url = new URL(s)
      return (url.protocol === "https:" || url.protocol === "http:") && url.hostname !== ""
    } catch {
      return false
    }
  }, { message: () => "must be an absolute http(s) URL of at most 2048 characters" }),
  Schema.annotations({ examples: ["https://example.com/hooks/calls"] })
)

export const ApiKeyName = Schema.Trim.pipe(
  Schema.filter((s) => s.length >= 1 && s.length <= ACCOUNT_LIMITS.apiKeyName, {
    message: () => `must be between 1 and ${ACCOUNT_LIMITS.apiKeyName} characters`
  })
)

export class CreateApiKeyRequest extends Schema.Class<CreateApiKeyRequest>("CreateApiKeyRequest")({
  name: ApiKeyName,
  expiresAt: Schema.optional(Schema.NullOr(Timestamp)).annotations({
    description: "The key stops working at this instant; must be in the future"
  }),
  webhookUrl: Schema.optional(Schema.NullOr(WebhookUrl)).annotations({ description: "Where call results are posted" }),
  agentId: Schema.optional(Schema.NullOr(AgentId)).annotations({ description: "Pins the key's webhook to one agent" })
}) {}

const apiKeyFields = {
  id: ApiKeyId,
  name: Schema.String,
  prefix: Schema.String.annotations({ description: "The first characters of the key, for display" }),
  expiresAt: Schema.NullOr(Timestamp),
  webhookUrl: Schema.NullOr(Schema.String),
  agentId: Schema.NullOr(AgentId),
  createdAt: Timestamp
}

export class ApiKey extends Schema.Class<ApiKey>("ApiKey")({
  ...apiKeyFields,
  lastUsedAt: Schema.NullOr(Timestamp).annotations({ description: "Updated at most once a minute" })
}) {}

export class CreatedApiKey extends Schema.Class<CreatedApiKey>("CreatedApiKey")({
  ...apiKeyFields,
  key: Schema.String.annotations({
    description:
      "The full key, shown only in this response: `aok_` + 30 random base62 characters + a 6-character checksum"
  }),
  signingSecret: Schema.String.annotations({
    description: "Secret (shown only in this response) that signs the call-result webhooks sent to webhookUrl"
  })
}) {}

export class ApiKeyNotFound
  extends Schema.TaggedError<ApiKeyNotFound>()("ApiKeyNotFound", errorFields("API key not found"))
{
  static readonly http: HttpError<ApiKeyNotFound> = httpError(this, { status: 404, code: "API_KEY_NOT_FOUND" })
}

export class ExpiryInPast extends Schema.TaggedError<ExpiryInPast>()(
  "ExpiryInPast",
  errorFields("expiresAt must be in the future")
) {
  static readonly http: HttpError<ExpiryInPast> = httpError(this, { status: 400, code: "EXPIRY_IN_PAST" })
}
