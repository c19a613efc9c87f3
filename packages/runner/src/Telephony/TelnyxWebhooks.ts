/**
 * Telnyx's Call Control webhooks: how they are signed and what they say about a call.
 *
 * Every webhook carries `telnyx-signature-ed25519` (base64 Ed25519 signature) and `telnyx-timestamp`
 * (Unix seconds); the signed bytes are `${timestamp}|${raw body}`, checked with the account's public
 * key (Mission Control, "Public Key", base64). The body is `{"data":{"record_type":"event","id",
 * "event_type","occurred_at","payload":{…}},"meta":{…}}`; `id` is unique per event and kept on
 * redelivery.
 *
 * What moves a call: `call.answered`, and `call.hangup` with its `hangup_cause` (`hangupCauseKind`).
 * `call.initiated`, `streaming.*` and everything else are acknowledged and change nothing: Telnyx
 * reports no ringing for an outbound Call Control leg, so a call goes from dialing to answered.
 */
import type { ProviderEventKind } from "@voiceagent/domain/Calls"
import * as Either from "effect/Either"
import * as crypto from "node:crypto"

export const SIGNATURE_HEADER = "telnyx-signature-ed25519"
export const TIMESTAMP_HEADER = "telnyx-timestamp"

/** A webhook signed longer ago than this (or this far in the future) is refused, replayed or not. */
export const TIMESTAMP_TOLERANCE_MS = 5 * 60_000

// DER prefix of an Ed25519 SubjectPublicKeyInfo (RFC 8410): the raw 32-byte key follows it.
const SPKI_ED25519_PREFIX = Buffer.from("302a300506032b6570032100", "hex")
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/

/**
 * The public key as Telnyx shows it (base64 of the raw 32 bytes), or base64 DER (SPKI), or PEM.
 * A string that is none of these, or not an Ed25519 key, is the reason why.
 */
export const parsePublicKey = (text: string): Either.Either<crypto.KeyObject, string> => {
  const trimmed = text.trim()
  try {
    if (trimmed.startsWith("-----BEGIN")) {
      const key = crypto.createPublicKey(trimmed)
      return key.asymmetricKeyType === "ed25519"
        ? Either.right(key)
        : Either.left("is a PEM key, but not an Ed25519 one")
    }
    if (!BASE64.test(trimmed)) return Either.left("expected the base64 Ed25519 public key Telnyx shows (44 characters)")
    const bytes = Buffer.from(trimmed, "base64")
    const der = bytes.length === 32
      ? Buffer.concat([SPKI_ED25519_PREFIX, bytes])
      : bytes.length === 44 && bytes.subarray(0, 12).equals(SPKI_ED25519_PREFIX)
      ? bytes
      : undefined
    if (der === undefined) return Either.left(`expected a 32-byte Ed25519 public key, got ${bytes.length} bytes`)
    return Either.right(crypto.createPublicKey({ key: der, format: "der", type: "spki" }))
  } catch (error) {
    return Either.left(`is not an Ed25519 public key (${error instanceof Error ? error.message : String(error)})`)
  }
}

/** The bytes Telnyx signs. */
const signedBytes = (timestamp: string, body: Uint8Array) => Buffer.concat([Buffer.from(`${timestamp}|`, "utf8"), body])

/** Telnyx's signature of a webhook: base64 Ed25519 over `${timestamp}|${body}` (for fakes and tests). */
export const signWebhook = (privateKey: crypto.KeyObject, timestamp: string, body: Uint8Array | string): string =>
  crypto.sign(null, signedBytes(timestamp, typeof body === "string" ? Buffer.from(body, "utf8") : body), privateKey)
    .toString("base64")

export type SignatureProblem =
  | "missing signature"
  | "missing timestamp"
  | "malformed timestamp"
  | "stale timestamp"
  | "malformed signature"
  | "bad signature"

/**
 * Whether a webhook is Telnyx's: the signature over its timestamp and raw body holds under `key`, and
 * the timestamp is within `TIMESTAMP_TOLERANCE_MS` of `now` (epoch ms). `undefined` when it is.
 */
export const verifyWebhook = (
  key: crypto.KeyObject,
  headers: { readonly signature: string | undefined; readonly timestamp: string | undefined },
  body: Uint8Array,
  now: number,
  toleranceMs: number = TIMESTAMP_TOLERANCE_MS
): SignatureProblem | undefined => {
  const { signature, timestamp } = headers
  if (signature === undefined || signature === "") return "missing signature"
  if (timestamp === undefined || timestamp === "") return "missing timestamp"
  if (!/^\d{1,12}$/.test(timestamp)) return "malformed timestamp"
  if (Math.abs(now - Number(timestamp) * 1000) > toleranceMs) return "stale timestamp"
  if (!BASE64.test(signature)) return "malformed signature"
  const bytes = Buffer.from(signature, "base64")
  if (bytes.length !== 64) return "malformed signature"
  return crypto.verify(null, signedBytes(timestamp, body), key, bytes) ? undefined : "bad signature"
}

/** One Call Control webhook, as far as the platform reads it. */
export interface TelnyxWebhookEvent {
  /** Unique per event, the same on every delivery of it. */
  readonly id: string
  readonly eventType: string
  /** `occurred_at`, epoch ms. */
  readonly occurredAt: number | undefined
  readonly payload: Readonly<Record<string, unknown>>
}

const isRecord = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const timeOf = (value: unknown): number | undefined | null => {
  if (value === undefined || value === null) return undefined
  if (typeof value !== "string" || !/^\d{4}-\d{2}-\d{2}[T ]/.test(value)) return null
  const at = Date.parse(value)
  return Number.isNaN(at) ? null : at
}

/** The envelope of a webhook body (already JSON), or what is wrong with it. */
export const parseWebhookEvent = (body: unknown): Either.Either<TelnyxWebhookEvent, string> => {
  if (!isRecord(body)) return Either.left("The webhook body is not a JSON object")
  const data = body["data"]
  if (!isRecord(data)) return Either.left("The webhook body has no data object")
  const id = data["id"]
  if (typeof id !== "string" || id === "" || id.length > 256) {
    return Either.left("data.id must be a string of 1 to 256 characters")
  }
  const eventType = data["event_type"]
  if (typeof eventType !== "string" || eventType === "" || eventType.length > 128) {
    return Either.left("data.event_type must be a string of 1 to 128 characters")
  }
  const occurredAt = timeOf(data["occurred_at"])
  if (occurredAt === null) return Either.left("data.occurred_at must be an ISO 8601 date")
  const payload = data["payload"] ?? {}
  if (!isRecord(payload)) return Either.left("data.payload must be an object")
  return Either.right({ id, eventType, occurredAt, payload })
}

/**
 * What a `call.hangup`'s cause means to the call (`call_rejected`, `normal_clearing`,
 * `originator_cancel`, `timeout`, `time_limit`, `user_busy`, `not_found`, `no_answer`,
 * `unspecified`). A declined call is busy, as Twilio reports it; a cancel before the answer (ours)
 * is unanswered; a cause Telnyx may add later is a plain end.
 */
export const hangupCauseKind = (cause: unknown): ProviderEventKind => {
  switch (cause) {
    case "user_busy":
    case "call_rejected":
      return "busy"
    case "timeout":
    case "no_answer":
    case "originator_cancel":
      return "no_answer"
    case "not_found":
    case "unspecified":
      return "failed"
    default:
      return "completed"
  }
}

/** What a webhook tells the call: its provider event, or nothing. */
export interface TelnyxCallEvent {
  readonly kind: ProviderEventKind
  /** Telnyx's time of it (a hang-up's `end_time`, else `occurred_at`). */
  readonly at: number | undefined
  readonly callControlId: string
}

/** The call's event in a webhook; `null` for webhooks that change nothing; a string when a call event is malformed. */
export const callEventOf = (event: TelnyxWebhookEvent): TelnyxCallEvent | null | string => {
  if (event.eventType !== "call.answered" && event.eventType !== "call.hangup") return null
  const callControlId = event.payload["call_control_id"]
  if (typeof callControlId !== "string" || callControlId === "" || callControlId.length > 512) {
    return `${event.eventType} without a call_control_id`
  }
  if (event.eventType === "call.answered") return { kind: "answered", at: event.occurredAt, callControlId }
  const ended = timeOf(event.payload["end_time"])
  if (ended === null) return "payload.end_time must be an ISO 8601 date"
  return { kind: hangupCauseKind(event.payload["hangup_cause"]), at: ended ?? event.occurredAt, callControlId }
}

/** The answering-machine detection webhooks the dial asks for (`answering_machine_detection`). */
export const MACHINE_DETECTION_EVENTS = [
  "call.machine.detection.ended",
  "call.machine.greeting.ended",
  "call.machine.premium.detection.ended",
  "call.machine.premium.greeting.ended"
] as const

/** What Telnyx's answering-machine detection says: who answered, and whether the greeting is over. */
export interface TelnyxMachineVerdict {
  readonly answeredBy: "human" | "machine" | "unknown"
  readonly messageEnded: boolean
  readonly result: string
  readonly callControlId: string
}

const DETECTION_RESULTS: Readonly<Record<string, TelnyxMachineVerdict["answeredBy"]>> = {
  human: "human",
  human_residence: "human",
  human_business: "human",
  machine: "machine",
  fax_detected: "machine",
  not_sure: "unknown",
  silence: "unknown"
}

/**
 * The verdict in a `call.machine.*` webhook (`payload.result`): detection's `human`, `machine` or
 * `not_sure` (premium: `human_residence`, `human_business`, `machine`, `silence`, `fax_detected`,
 * `not_sure`), a greeting's end (`beep_detected`, `ended`, `no_beep_detected`, `not_sure`: a machine whose
 * message can be left now). `null` for any other webhook; a string when a machine event is malformed.
 */
export const machineVerdictOf = (event: TelnyxWebhookEvent): TelnyxMachineVerdict | null | string => {
  if (!(MACHINE_DETECTION_EVENTS as ReadonlyArray<string>).includes(event.eventType)) return null
  const callControlId = event.payload["call_control_id"]
  if (typeof callControlId !== "string" || callControlId === "" || callControlId.length > 512) {
    return `${event.eventType} without a call_control_id`
  }
  const result = event.payload["result"]
  if (typeof result !== "string" || result === "" || result.length > 64) return `${event.eventType} without a result`
  if (event.eventType.endsWith("greeting.ended")) {
    return { answeredBy: "machine", messageEnded: true, result, callControlId }
  }
  const answeredBy = DETECTION_RESULTS[result]
  if (answeredBy === undefined) return `${event.eventType} with an unknown result: ${result}`
  return { answeredBy, messageEnded: false, result, callControlId }
}
