/**
 * Call recordings (docs/recordings.md): whether a call is recorded, what the API says of a
 * recording, and its errors. A recording is stereo: the caller on the left, on the right the
 * agent's audio as the caller heard it (cut where the caller barged in).
 */
import * as Schema from "effect/Schema"
import { errorFields, type HttpError, httpError } from "./ApiError.js"
import { Timestamp } from "./Timestamp.js"

/**
 * An agent's recording setting: `off` (the default) records a call only when it asks (`record` on
 * `POST /channels/voice/call`), `on` records every call unless it asks not to, `never` records none,
 * whatever the call asks.
 */
export const AgentRecording = Schema.Literal("off", "on", "never").annotations({
  description:
    "Extension: off (default: a call is recorded only when it asks, record: true), on (every call unless it asks " +
    "not to), never (no call, whatever it asks). See docs/recordings.md"
})
export type AgentRecording = typeof AgentRecording.Type

/** Whether a call is recorded: the agent's `never` wins, then the call's own `record`, then the agent's setting. */
export const shouldRecord = (agent: AgentRecording | undefined, call: boolean | undefined): boolean =>
  agent === "never" ? false : call ?? agent === "on"

export class RecordingSummary extends Schema.Class<RecordingSummary>("RecordingSummary")({
  durationMs: Schema.Int.annotations({ description: "Length of the recording" }),
  bytes: Schema.Int.annotations({ description: "Size of the WAV file" }),
  sampleRate: Schema.Int.annotations({ description: "8000 for phone calls, 16000 for web calls" }),
  channels: Schema.Literal(2).annotations({ description: "Left: the caller; right: the agent as the caller heard it" }),
  createdAt: Timestamp
}) {}

export class RecordingNotFound extends Schema.TaggedError<RecordingNotFound>()(
  "RecordingNotFound",
  errorFields("Recording not found")
) {
  static readonly http: HttpError<RecordingNotFound> = httpError(this, { status: 404, code: "RECORDING_NOT_FOUND" })
}

/** How long recordings are kept when `RECORDING_RETENTION_DAYS` is not set. */
export const DEFAULT_RECORDING_RETENTION_DAYS = 30
