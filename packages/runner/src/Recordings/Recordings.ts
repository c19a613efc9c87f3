/**
 * Call recordings: the files under the recordings directory (`RECORDINGS_DIR`, default
 * `DATA_DIR/recordings`), a row each in `call_recordings`, and their retention.
 *
 * A recorded call's file is `<tenant id>/<session id>.<part>.wav` under the directory, written while the
 * call goes on (`CallRecorder`) and finished, with its row, when the call's conversation closes
 * (the call ended, or its entity stopped). Every process that runs calls or serves the API must see
 * the same directory (one disk, or a shared volume). The row is what the API reads: a file without
 * one (a call still going on, or a process that died mid-call) is never served.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type { Agent } from "@voiceagent/domain/Agents"
import type { CallSpec, SessionId } from "@voiceagent/domain/Calls"
import type { TenantId } from "@voiceagent/domain/Ids"
import { DEFAULT_RECORDING_RETENTION_DAYS, RecordingSummary, shouldRecord } from "@voiceagent/domain/Recordings"
import { WEB_CALL_SAMPLE_RATE } from "@voiceagent/domain/WebCalls"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as crypto from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { tracked } from "../Observability/OffClockWork.js"
import * as Rows from "../Sql/Rows.js"
import { SAMPLE_RATE } from "../Voice/Audio.js"
import type { MediaSession } from "../Voice/Media.js"
import { makeInterleaver, makeTimeline, recordMedia } from "./CallRecorder.js"
import { openWavFile, WAV_HEADER_BYTES } from "./WavFile.js"

export interface RecordingsOptions {
  /** Where the files go. */
  readonly directory: string
  /** Recordings older than this many days are deleted. */
  readonly retentionDays: number
  /** How often the retention sweep runs. */
  readonly sweepInterval: Duration.DurationInput
}

export class RecordingsSettings extends Context.Tag("Recordings/Settings")<RecordingsSettings, RecordingsOptions>() {
  /** For tests and processes given no directory: one under the system's temporary directory. */
  static readonly defaults: RecordingsOptions = {
    directory: path.join(os.tmpdir(), "voiceagent-recordings"),
    retentionDays: DEFAULT_RECORDING_RETENTION_DAYS,
    sweepInterval: "1 hour"
  }

  static readonly layer = (options: RecordingsOptions = RecordingsSettings.defaults) =>
    Layer.succeed(RecordingsSettings, options)
}

/** Where a call's recording is kept, relative to the directory (`part` tells two recordings of one call apart). */
export const recordingPath = (tenantId: string, sessionId: string, part: string) =>
  path.join(tenantId, `${sessionId}.${part}.wav`)

const RecordingRow = Schema.Struct({
  sessionId: Schema.String,
  path: Schema.String,
  durationMs: Schema.NonNegativeInt,
  bytes: Schema.NonNegativeInt,
  sampleRate: Schema.Int,
  createdAt: Schema.DateFromSelf
})
type RecordingRow = typeof RecordingRow.Type

/** A call being recorded: each of its media streams goes through `wrap`. */
export interface CallRecording {
  readonly wrap: (media: MediaSession) => Effect.Effect<MediaSession, never, Scope.Scope>
}

const DAY_MS = 86_400_000

/** A recording's file name: its session id, the part, `.wav`. */
const RECORDING_FILE = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.[0-9a-f]+\.wav$/

/**
 * Whether a call of `agent` with `spec` is recorded, and at what rate: 16 kHz for a web call, 8 kHz on a phone line.
 */
export const recordingOf = (agent: Agent, spec: CallSpec): { readonly sampleRate: number } | undefined =>
  shouldRecord(agent.settings.recording, spec.record)
    ? { sampleRate: spec.provider === "WEB" ? WEB_CALL_SAMPLE_RATE : SAMPLE_RATE }
    : undefined

export class Recordings extends Effect.Service<Recordings>()("Recordings/Recordings", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const settings = yield* RecordingsSettings
    const directory = path.resolve(settings.directory)

    const summaryOf = (row: RecordingRow) =>
      new RecordingSummary({
        durationMs: row.durationMs,
        bytes: row.bytes,
        sampleRate: row.sampleRate,
        channels: 2,
        createdAt: row.createdAt
      }, Rows.validated)

    const find = Effect.fn("Recordings.find")(function*(tenantId: TenantId, sessionId: SessionId) {
      return yield* Rows.findOne(
        RecordingRow,
        sql`
        SELECT session_id, path, duration_ms, bytes, sample_rate, created_at FROM call_recordings
        WHERE session_id = ${sessionId} AND tenant_id = ${tenantId}
      `
      ).pipe(Effect.orDie)
    })

    /** A tenant's recording of a call, if there is one. */
    const summary = (tenantId: TenantId, sessionId: SessionId) =>
      Effect.map(find(tenantId, sessionId), Option.map(summaryOf))

    /** The file of a tenant's recording, if there is one and it is still on disk. */
    const file = (tenantId: TenantId, sessionId: SessionId) =>
      Effect.map(find(tenantId, sessionId), (row) =>
        Option.flatMap(row, (r) => {
          const absolute = path.join(directory, r.path)
          return fs.existsSync(absolute) ? Option.some({ path: absolute, bytes: r.bytes }) : Option.none()
        }))

    /** Removes a recording's file (gone already is fine); a disk that refuses is a defect. */
    const removeFile = (relative: string) =>
      Effect.tryPromise(() => fs.promises.rm(path.join(directory, relative), { force: true })).pipe(Effect.orDie)

    /** Deletes a tenant's recording (file and row): whether there was one. */
    const remove = Effect.fn("Recordings.remove")(function*(tenantId: TenantId, sessionId: SessionId) {
      const row = yield* find(tenantId, sessionId)
      if (Option.isNone(row)) return false
      yield* removeFile(row.value.path)
      yield* sql`DELETE FROM call_recordings WHERE session_id = ${sessionId} AND tenant_id = ${tenantId}`.pipe(
        Effect.orDie
      )
      return true
    })

    /** Deletes the recordings made before `retentionDays` ago: files first, then their rows. How many. */
    const sweep = Effect.fn("Recordings.sweep")(function*() {
      const cutoff = new Date((yield* Clock.currentTimeMillis) - settings.retentionDays * DAY_MS)
      const old = yield* Rows.findAll(
        Schema.Struct({ sessionId: Schema.String, path: Schema.String }),
        sql`
        SELECT session_id, path FROM call_recordings WHERE created_at < ${cutoff} ORDER BY created_at LIMIT 1000
      `
      ).pipe(Effect.orDie)
      let deleted = 0
      for (const row of old) {
        // one file the disk refuses to remove stays (and its row, so the next sweep tries again); the rest go
        yield* removeFile(row.path).pipe(
          Effect.zipRight(sql`DELETE FROM call_recordings WHERE session_id = ${row.sessionId}`.pipe(Effect.orDie)),
          Effect.zipRight(Effect.sync(() => deleted++)),
          Effect.catchAllCause((cause) =>
            Effect.logWarning(`a recording past its retention could not be deleted: ${row.path}`, cause)
          )
        )
      }
      return deleted + (yield* removeOrphans(cutoff))
    })

    /**
     * Files past the retention without a row: left by a process that died mid-call (or a part of a
     * call recorded twice). Removed by their age on disk.
     */
    const removeOrphans = Effect.fn("Recordings.removeOrphans")(function*(cutoff: Date) {
      let removed = 0
      const tenants = yield* Effect.promise(() =>
        fs.promises.readdir(directory, { withFileTypes: true }).catch(() => [])
      )
      for (const tenant of tenants) {
        if (!tenant.isDirectory()) continue
        const names = yield* Effect.promise(() =>
          fs.promises.readdir(path.join(directory, tenant.name)).catch(() => [] as Array<string>)
        )
        for (const name of names) {
          const session = RECORDING_FILE.exec(name)?.[1]
          if (session === undefined) continue
          const relative = path.join(tenant.name, name)
          const stat = yield* Effect.promise(() =>
            fs.promises.stat(path.join(directory, relative)).catch(() => undefined)
          )
          if (stat === undefined || stat.mtimeMs >= cutoff.getTime()) continue
          const row = yield* Rows.findOne(
            Schema.Struct({ path: Schema.String }),
            sql`SELECT path FROM call_recordings WHERE session_id = ${session}`
          )
            .pipe(Effect.orDie)
          if (Option.isSome(row) && row.value.path === relative) continue
          yield* removeFile(relative).pipe(
            Effect.zipRight(Effect.sync(() => removed++)),
            Effect.catchAllCause((cause) =>
              Effect.logWarning(`a recording file without a record could not be deleted: ${relative}`, cause)
            )
          )
        }
      }
      return removed
    })

    /** Sweeps every `sweepInterval`, from now on (a cluster singleton: one process does it). */
    const retention = sweep().pipe(
      Effect.tap((n) => n > 0 ? Effect.logInfo(`deleted ${n} recordings past their retention`) : Effect.void),
      Effect.catchAllCause((cause) => Effect.logWarning("the recordings' retention sweep failed", cause)),
      Effect.repeat(Schedule.spaced(settings.sweepInterval)),
      Effect.asVoid
    )

    /**
     * Starts recording a call: its file is created now and finished, with its row, when `scope`
     * closes. A call that never had audio leaves nothing. Failing to write never fails the call: the
     * recording is dropped and the reason logged.
     */
    const start: (options: {
      readonly sessionId: SessionId
      readonly tenantId: TenantId
      readonly sampleRate: number
    }) => Effect.Effect<CallRecording, never, Scope.Scope> = Effect.fn("Recordings.start")(
      function*(options) {
        const relative = recordingPath(options.tenantId, options.sessionId, crypto.randomBytes(4).toString("hex"))
        const absolute = path.join(directory, relative)
        // the call never waits for the disk: a file that cannot be made is found out when it is finished
        const writer = yield* openWavFile(absolute, 2, options.sampleRate)
        const timeline = makeTimeline(makeInterleaver(options.sampleRate, writer.append))
        yield* Effect.addFinalizer(() =>
          Effect.gen(function*() {
            timeline.end(yield* Clock.currentTimeMillis)
            if (writer.dataBytes() === 0) return yield* writer.discard
            const bytes = yield* writer.finish
            const durationMs = Math.round(((bytes - WAV_HEADER_BYTES) * 1_000) / (4 * options.sampleRate))
            const at = new Date(yield* Clock.currentTimeMillis)
            const inserted = yield* sql`
              INSERT INTO call_recordings (session_id, tenant_id, path, duration_ms, bytes, sample_rate, created_at)
              VALUES (${options.sessionId}, ${options.tenantId}, ${relative}, ${durationMs}, ${bytes},
                ${options.sampleRate}, ${at})
              ON CONFLICT (session_id) DO NOTHING
              RETURNING session_id
            `
            // the call was recorded before, elsewhere (it moved mid-call): the first recording stays
            if (inserted.length === 0) {
              yield* Effect.logWarning("the call already has a recording: this part is not kept")
              yield* removeFile(relative)
            }
          }).pipe(
            Effect.catchAllCause((cause) =>
              Effect.zipRight(
                Effect.logWarning(`a call's recording could not be written in ${directory}: it is dropped`, cause),
                Effect.ignore(writer.discard)
              )
            ),
            // real I/O the TestClock does not see: the testing kit waits for it before moving time
            tracked
          )
        )
        return { wrap: (media) => recordMedia(media, timeline) }
      }
    )

    return { start, summary, file, remove, sweep, retention, directory } as const
  })
}) {}
