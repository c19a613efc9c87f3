/**
 * A fake of Deepgram's streaming speech-to-text (`/v1/listen` over WebSocket) on a loopback port,
 * for tests, built from the documented protocol. It has no speech recogniser: it finds speech in
 * the audio it actually received with a voice activity detector (the energy detector, or WebRTC's
 * from `Vad.ts`, through `detect`'s onsets and offsets) and, for the k-th stretch of speech, plays
 * the k-th transcript of a script. So it tests a client's encoding, pacing, endpointing and
 * control messages without an ASR model.
 *
 * The handshake: path `/v1/listen`; `Authorization: Token <apiKey>` or a 401 (`dg-error` header
 * and `{err_code, err_msg, request_id}` body, as Deepgram answers a refused upgrade); the query
 * string validated (400 otherwise): `encoding=mulaw`, `sample_rate=8000`, `channels=1` (the only
 * audio the fake decodes), `interim_results=true`, a `model`, a `language`; booleans `true`/`false`;
 * `endpointing` a whole number of ms or `false`; `utterance_end_ms` a whole number; `keyterm`
 * repeatable; any other or repeated parameter is refused (a client's typo shows up here, where the
 * real service might ignore it).
 *
 * What it sends, for the audio timeline of each connection (20 ms a 160-byte frame; messages are
 * due when the audio reaching that time has arrived, so a test may send audio faster than real
 * time):
 * - `SpeechStarted` at each onset (`vad_events=true`), for noise too;
 * - interim `Results` (`is_final: false`) growing word by word, one more word every `wordMs` of
 *   the stretch's audio;
 * - at the end of the stretch (`segmentGapMs` of silence) a final `Results` (`is_final: true`)
 *   with the rest of its words (an empty transcript for a noise stretch, scripted `""`);
 * - once `endpointing` ms of silence followed speech whose words no `speech_final` has closed, a
 *   final `Results` with `speech_final: true` (its transcript empty when the words were already
 *   final, as Deepgram's often is) — a stretch that starts before then keeps the utterance open,
 *   so one utterance can have several finals;
 * - `UtteranceEnd` (`utterance_end_ms` given) once that long has passed since the last word's end
 *   (noise does not move it), at most once after words;
 * - for `{"type":"Finalize"}`, a final `Results` with `from_finalize: true` holding the words
 *   heard and not yet final (possibly none); the stretch's remaining words come later;
 * - for `{"type":"CloseStream"}`, the final of the words pending, a `Metadata` message and a
 *   normal close (1000);
 * - after `inactivityMs` (10 s) without audio or `KeepAlive`, by Effect's `Clock` where the fake
 *   was built (the TestClock under `@effect/vitest`), an `Error` message and a close with code 1011
 *   and reason `NET-0001`.
 *
 * Scripts: `transcripts` is consumed stretch by stretch across all connections (a client that
 * reconnects mid-call continues the same script); `scripts` keyed by a `keyterm` give separate
 * calls separate scripts. A transcript is written as the caller would read it ("Hello there."):
 * `punctuated_word` and `transcript` keep it, `word` is lower case without punctuation. When the
 * script runs out, stretches are noise.
 *
 * Faults: `refuse(status)` answers the next upgrades with an error status; `disconnectAfter(ms)`
 * drops a connection (no close frame: the client sees 1006) once it has received that much audio;
 * `drop()` drops it at once; `latencyMs`/`setLatency` delay every message (real time, order kept).
 * Everything is recorded per connection (query, header, audio, control messages, what was sent,
 * how it closed) and can be waited for; a wait dies after 30 s of real time rather than hang.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as FiberSet from "effect/FiberSet"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import * as crypto from "node:crypto"
import * as http from "node:http"
import type { Duplex } from "node:stream"
import { type WebSocket, WebSocketServer } from "ws"
import { FRAME_MS, mulawDecode, SAMPLES_PER_FRAME } from "../Voice/Audio.js"
import {
  detect,
  type DetectorSettings,
  type DetectorState,
  energyVad,
  initialDetector,
  Vad,
  type VadStream,
  webrtcVad
} from "../Voice/Vad.js"
import { listen, makeWaiters, refuseUpgrade } from "./FakeHttp.js"

export const FAKE_DEEPGRAM_API_KEY = "fake-deepgram-key-0123456789abcdef"

export interface FakeDeepgramOptions {
  /** The key every connection must present as `Authorization: Token <key>`. */
  readonly apiKey?: string
  /** Transcripts for successive stretches of speech, across connections without a keyed script. */
  readonly transcripts?: ReadonlyArray<string>
  /** Scripts for connections whose query has a `keyterm` equal to the key. */
  readonly scripts?: Readonly<Record<string, ReadonlyArray<string>>>
  /**
   * The detector run over the received audio: `energy` (RMS ≥
   * `energyThreshold`, the default) or `webrtc` (fvad, mode 3).
   */
  readonly vad?: "energy" | "webrtc"
  readonly energyThreshold?: number
  /** Speech a stretch needs per interim word (ms); 200 unless set. */
  readonly wordMs?: number
  /** Silence that ends a stretch of speech (ms); 100 unless set. */
  readonly segmentGapMs?: number
  /** Real time every message waits before it is sent (ms); 0 unless set. */
  readonly latencyMs?: number
  /** Clock time without audio or KeepAlive before a NET-0001 close (ms); 10 000 unless set. */
  readonly inactivityMs?: number
}

export interface FakeDeepgramUpgrade {
  readonly path: string
  readonly authorization: string | undefined
  /** 101 when the connection was accepted. */
  readonly status: number
}

export interface FakeDeepgramConnection {
  readonly index: number
  readonly requestId: string
  readonly path: string
  /** The query's parameters in order, repeats kept. */
  readonly query: ReadonlyArray<readonly [string, string]>
  readonly authorization: string | undefined
  readonly audioBytes: number
  /** Received audio, 20 ms a 160-byte frame. */
  readonly audioMs: number
  /** Binary messages received (the client's batching). */
  readonly audioMessages: number
  /** Text messages received, in order. */
  readonly controls: ReadonlyArray<string>
  readonly keepAlives: number
  readonly finalizes: number
  readonly closeStreams: number
  /** Every message the fake sent, parsed, in order. */
  readonly sent: ReadonlyArray<Record<string, unknown>>
  /** How the connection ended; `undefined` while open. */
  readonly closed:
    | { readonly code: number; readonly reason: string; readonly by: "client" | "server" | "dropped" }
    | undefined
}

export interface FakeDeepgramServer {
  /** The listen URL: `ws://127.0.0.1:{port}/v1/listen`. */
  readonly url: string
  readonly apiKey: string
  /** Every upgrade request, refused ones included. */
  readonly upgrades: () => ReadonlyArray<FakeDeepgramUpgrade>
  /** Accepted connections, in order (snapshots). */
  readonly connections: () => ReadonlyArray<FakeDeepgramConnection>
  /** Answers the next `count` upgrades with `status` (401, 403, 429, 500, 503 …). */
  readonly refuse: (status: number, count?: number) => void
  /** Drops the open connection (the next one when none is open) once it has received `audioMs` of audio. */
  readonly disconnectAfter: (audioMs: number) => void
  /** Drops the open connections at once (no close frame). */
  readonly drop: () => void
  readonly setLatency: (millis: number) => void
  /** Waits until `ready()` holds (checked after every event); dies after `millis` of real time. */
  readonly until: (label: string, ready: () => boolean, millis?: number) => Effect.Effect<void>
  readonly awaitConnections: (count: number) => Effect.Effect<void>
  readonly awaitUpgrades: (count: number) => Effect.Effect<void>
  /** Waits until connection `index` has received `audioMs` of audio. */
  readonly awaitAudio: (index: number, audioMs: number) => Effect.Effect<void>
  readonly awaitClosed: (index: number) => Effect.Effect<void>
}

const DEFAULTS = { wordMs: 200, segmentGapMs: 100, inactivityMs: 10_000, energyThreshold: 500 }
const MODEL_INFO = { name: "general-nova-3", version: "2025-01-31.0", arch: "nova-3" }
const MODEL_UUID = "40bd3654-e622-47c4-a111-63a61b23bfe8"
/** Deepgram's default when `endpointing` is not given. */
const DEFAULT_ENDPOINTING_MS = 10

const BOOLEAN_PARAMS = new Set([
  "interim_results",
  "vad_events",
  "punctuate",
  "smart_format",
  "diarize",
  "filler_words",
  "numerals",
  "profanity_filter",
  "no_delay",
  "multichannel",
  "dictation",
  "mip_opt_out"
])
const FIXED_PARAMS: ReadonlyMap<string, string> = new Map([
  ["encoding", "mulaw"],
  ["sample_rate", "8000"],
  ["channels", "1"],
  ["interim_results", "true"]
])
const KNOWN_PARAMS = new Set([
  ...BOOLEAN_PARAMS,
  ...FIXED_PARAMS.keys(),
  "model",
  "language",
  "endpointing",
  "utterance_end_ms",
  "keyterm",
  "version",
  "tag"
])

const round3 = (seconds: number) => Math.round(seconds * 1000) / 1000

/** `word`: lower case, letters, digits and inner apostrophes only (`"Hello," → "hello"`). */
const plainWord = (punctuated: string) => punctuated.toLowerCase().replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, "")

interface WordTiming {
  readonly punctuated: string
  readonly start: number
  readonly end: number
}

interface Segment {
  /** Start of the stretch (ms on the connection's audio timeline). */
  readonly startMs: number
  readonly words: ReadonlyArray<string>
  /** Words shown so far (interim or final). */
  visible: number
  /** Words already sent in a final. */
  finalized: number
  /** Where the not-yet-final words start (the stretch's start, or the last Finalize). */
  cutMs: number
}

/** Validates the query string; the error message when refused. */
const validateQuery = (query: ReadonlyArray<readonly [string, string]>): string | undefined => {
  const seen = new Set<string>()
  for (const [key, value] of query) {
    if (!KNOWN_PARAMS.has(key)) return `Unknown query parameter: ${key}`
    if (key !== "keyterm" && seen.has(key)) return `Query parameter given more than once: ${key}`
    seen.add(key)
    const fixed = FIXED_PARAMS.get(key)
    if (fixed !== undefined && value !== fixed) return `The fake only takes ${key}=${fixed}, got ${value}`
    if (BOOLEAN_PARAMS.has(key) && value !== "true" && value !== "false") {
      return `${key} must be true or false, got ${value}`
    }
    if (key === "endpointing" && value !== "false" && !/^\d+$/.test(value)) {
      return `endpointing must be a whole number of ms or false, got ${value}`
    }
    if (key === "utterance_end_ms" && !/^\d+$/.test(value)) {
      return `utterance_end_ms must be a whole number of ms, got ${value}`
    }
    if ((key === "model" || key === "language" || key === "keyterm") && value.trim() === "") {
      return `${key} must not be empty`
    }
  }
  for (const key of [...FIXED_PARAMS.keys(), "model", "language"]) {
    if (!seen.has(key)) return `Missing query parameter: ${key}`
  }
  return undefined
}

/** Starts the fake on 127.0.0.1 and a free port; it stops when the scope closes. */
export const make = (options: FakeDeepgramOptions = {}): Effect.Effect<FakeDeepgramServer, never, Scope.Scope> =>
  Effect.gen(function*() {
    const apiKey = options.apiKey ?? FAKE_DEEPGRAM_API_KEY
    const wordMs = options.wordMs ?? DEFAULTS.wordMs
    const segmentGapMs = options.segmentGapMs ?? DEFAULTS.segmentGapMs
    const inactivityMs = options.inactivityMs ?? DEFAULTS.inactivityMs
    const vad = yield* Effect.provide(
      Vad,
      options.vad === "webrtc" ? webrtcVad(3) : energyVad(options.energyThreshold ?? DEFAULTS.energyThreshold)
    )
    const clock = yield* Effect.clock
    const run = yield* FiberSet.makeRuntime<never>()
    let latencyMs = options.latencyMs ?? 0

    const upgrades: Array<FakeDeepgramUpgrade> = []
    const refusals: Array<number> = []
    const pendingDrops: Array<number> = []
    const live: Array<Live> = []
    const waiters = makeWaiters("FakeDeepgram")
    const cursors = new Map<string, number>()

    const nextTranscript = (scriptKey: string | undefined): string => {
      const script = scriptKey === undefined ? options.transcripts ?? [] : options.scripts![scriptKey]!
      const key = scriptKey ?? ""
      const at = cursors.get(key) ?? 0
      cursors.set(key, at + 1)
      return script[at] ?? ""
    }

    interface Live {
      record: FakeDeepgramConnection
      readonly ws: WebSocket
      readonly settings: {
        readonly endpointingMs: number | false
        readonly utteranceEndMs: number | undefined
        readonly vadEvents: boolean
        readonly scriptKey: string | undefined
      }
      readonly vad: VadStream
      detector: DetectorState
      remainder: Uint8Array
      frames: number
      segment: Segment | undefined
      /** Start (ms) of the next Results window. */
      windowStartMs: number
      /** Words were finalised and no speech_final closed them yet. */
      unclosedWords: boolean
      /** End of the last speech (ms), for endpointing. */
      lastSpeechEndMs: number
      /** End of the last word (ms) awaiting an UtteranceEnd; undefined when none is due. */
      lastWordEndMs: number | undefined
      lastActivity: number
      dropAtMs: number | undefined
      chain: Promise<void>
      ended: boolean
    }

    const update = (conn: Live, patch: Partial<FakeDeepgramConnection>) => {
      conn.record = { ...conn.record, ...patch }
    }

    const send = (conn: Live, message: Record<string, unknown>) => {
      if (conn.ended) return
      update(conn, { sent: [...conn.record.sent, message] })
      const text = JSON.stringify(message)
      const delay = latencyMs
      conn.chain = conn.chain.then(() =>
        new Promise<void>((resolve) => {
          const go = () => {
            if (conn.ws.readyState === conn.ws.OPEN) conn.ws.send(text)
            resolve()
          }
          if (delay > 0) setTimeout(go, delay)
          else go()
        })
      )
    }

    const closeWith = (conn: Live, code: number, reason: string) => {
      if (conn.ended) return
      conn.ended = true
      conn.chain = conn.chain.then(() => {
        update(conn, { closed: { code, reason, by: "server" } })
        conn.ws.close(code, reason)
        waiters.wake()
      })
    }

    const dropConnection = (conn: Live) => {
      if (conn.ended) return
      conn.ended = true
      update(conn, { closed: { code: 1006, reason: "", by: "dropped" } })
      conn.ws.terminate()
    }

    const results = (
      conn: Live,
      fromMs: number,
      toMs: number,
      words: ReadonlyArray<WordTiming>,
      flags: { readonly isFinal: boolean; readonly speechFinal: boolean; readonly fromFinalize: boolean }
    ) => ({
      type: "Results",
      channel_index: [0, 1],
      duration: round3((toMs - fromMs) / 1000),
      start: round3(fromMs / 1000),
      is_final: flags.isFinal,
      speech_final: flags.speechFinal,
      channel: {
        alternatives: [{
          transcript: words.map((w) => w.punctuated).join(" "),
          confidence: words.length === 0 ? 0 : 0.99,
          words: words.map((w) => ({
            word: plainWord(w.punctuated),
            start: round3(w.start / 1000),
            end: round3(w.end / 1000),
            confidence: 0.99,
            punctuated_word: w.punctuated
          }))
        }]
      },
      metadata: { request_id: conn.record.requestId, model_info: MODEL_INFO, model_uuid: MODEL_UUID },
      from_finalize: flags.fromFinalize
    })

    /** Words `from..to` of the stretch spread evenly over `[startMs, endMs]`. */
    const spread = (segment: Segment, from: number, to: number, startMs: number, endMs: number): Array<WordTiming> => {
      const count = to - from
      const step = count === 0 ? 0 : Math.max(0, endMs - startMs) / count
      return segment.words.slice(from, to).map((punctuated, i) => ({
        punctuated,
        start: startMs + i * step,
        end: startMs + (i + 1) * step
      }))
    }

    /** Sends a final with the stretch's words up to `upTo` (all unless given), cut at `nowMs`. */
    const finalizeWords = (
      conn: Live,
      nowMs: number,
      endMs: number,
      flags: { readonly speechFinal: boolean; readonly fromFinalize: boolean },
      upTo?: number
    ) => {
      const segment = conn.segment
      const words = segment === undefined
        ? []
        : spread(segment, segment.finalized, upTo ?? segment.words.length, segment.cutMs, endMs)
      send(conn, results(conn, conn.windowStartMs, nowMs, words, { isFinal: true, ...flags }))
      conn.windowStartMs = nowMs
      if (segment !== undefined) {
        segment.finalized = upTo ?? segment.words.length
        segment.visible = Math.max(segment.visible, segment.finalized)
        segment.cutMs = nowMs
      }
      if (words.length > 0) {
        conn.unclosedWords = true
        conn.lastWordEndMs = words[words.length - 1]!.end
      }
      if (flags.speechFinal) conn.unclosedWords = false
    }

    /** One 20 ms frame starting at `t` on the connection's timeline. */
    const onFrame = (conn: Live, pcm: Int16Array, t: number) => {
      const end = t + FRAME_MS
      const settings: DetectorSettings = { startMs: 60, windowMs: 200, stopMs: segmentGapMs }
      const step = detect(conn.detector, conn.vad.isSpeech(pcm), t, settings)
      conn.detector = step.state
      if (step.change?._tag === "Started") {
        const transcript = nextTranscript(conn.settings.scriptKey)
        conn.segment = {
          startMs: step.change.at,
          words: transcript.split(/\s+/).filter((w) => w !== ""),
          visible: 0,
          finalized: 0,
          cutMs: step.change.at
        }
        if (conn.settings.vadEvents) {
          send(conn, { type: "SpeechStarted", channel: [0, 1], timestamp: round3(step.change.at / 1000) })
        }
      }
      const segment = conn.segment
      if (segment !== undefined && step.change?._tag !== "Ended") {
        const target = Math.min(segment.words.length, Math.floor((end - segment.startMs) / wordMs))
        if (target > segment.visible) {
          segment.visible = target
          const words = segment.words.slice(segment.finalized, target).map((punctuated, i) => {
            const start = Math.max(segment.cutMs, segment.startMs + (segment.finalized + i) * wordMs)
            return { punctuated, start, end: Math.min(end, start + wordMs) }
          })
          send(
            conn,
            results(conn, conn.windowStartMs, end, words, { isFinal: false, speechFinal: false, fromFinalize: false })
          )
        }
        // the last word lasts while the stretch does: no UtteranceEnd in the middle of speech
        if (segment.visible > 0) conn.lastWordEndMs = end
      }
      if (step.change?._tag === "Ended") {
        const speechEnd = step.change.at
        const endpointed = conn.settings.endpointingMs !== false && end - speechEnd >= conn.settings.endpointingMs
        finalizeWords(conn, end, speechEnd, {
          speechFinal: endpointed && (conn.unclosedWords || (segment?.words.length ?? 0) > (segment?.finalized ?? 0)),
          fromFinalize: false
        })
        conn.segment = undefined
        conn.lastSpeechEndMs = speechEnd
      }
      if (
        !conn.detector.speaking && conn.segment === undefined && conn.unclosedWords &&
        conn.settings.endpointingMs !== false &&
        end - conn.lastSpeechEndMs >= conn.settings.endpointingMs
      ) {
        send(
          conn,
          results(conn, conn.windowStartMs, end, [], { isFinal: true, speechFinal: true, fromFinalize: false })
        )
        conn.windowStartMs = end
        conn.unclosedWords = false
      }
      if (
        conn.settings.utteranceEndMs !== undefined && conn.lastWordEndMs !== undefined &&
        end - conn.lastWordEndMs >= conn.settings.utteranceEndMs
      ) {
        send(conn, { channel: [0, 1], last_word_end: round3(conn.lastWordEndMs / 1000), type: "UtteranceEnd" })
        conn.lastWordEndMs = undefined
      }
    }

    const onAudio = (conn: Live, data: Buffer) => {
      conn.lastActivity = clock.unsafeCurrentTimeMillis()
      update(conn, { audioBytes: conn.record.audioBytes + data.length, audioMessages: conn.record.audioMessages + 1 })
      let bytes: Uint8Array = data
      if (conn.remainder.length > 0) {
        bytes = new Uint8Array(conn.remainder.length + data.length)
        bytes.set(conn.remainder)
        bytes.set(data, conn.remainder.length)
      }
      let at = 0
      for (; at + SAMPLES_PER_FRAME <= bytes.length; at += SAMPLES_PER_FRAME) {
        const t = conn.frames * FRAME_MS
        conn.frames += 1
        onFrame(conn, mulawDecode(bytes.subarray(at, at + SAMPLES_PER_FRAME)), t)
        if (conn.dropAtMs !== undefined && conn.frames * FRAME_MS >= conn.dropAtMs) {
          update(conn, { audioMs: conn.frames * FRAME_MS })
          dropConnection(conn)
          return
        }
      }
      conn.remainder = bytes.slice(at)
      update(conn, { audioMs: conn.frames * FRAME_MS })
    }

    const onControl = (conn: Live, text: string) => {
      update(conn, { controls: [...conn.record.controls, text] })
      let type: unknown
      try {
        type = (JSON.parse(text) as { readonly type?: unknown }).type
      } catch {
        type = undefined
      }
      const nowMs = conn.frames * FRAME_MS
      switch (type) {
        case "KeepAlive":
          conn.lastActivity = clock.unsafeCurrentTimeMillis()
          update(conn, { keepAlives: conn.record.keepAlives + 1 })
          break
        case "Finalize": {
          update(conn, { finalizes: conn.record.finalizes + 1 })
          const segment = conn.segment
          finalizeWords(conn, nowMs, nowMs, { speechFinal: false, fromFinalize: true }, segment?.visible)
          break
        }
        case "CloseStream": {
          update(conn, { closeStreams: conn.record.closeStreams + 1 })
          if (conn.segment !== undefined && conn.segment.finalized < conn.segment.words.length) {
            finalizeWords(conn, nowMs, nowMs, { speechFinal: false, fromFinalize: false })
          }
          send(conn, {
            type: "Metadata",
            transaction_key: "deprecated",
            request_id: conn.record.requestId,
            sha256: crypto.createHash("sha256").update(String(conn.record.audioBytes)).digest("hex"),
            created: new Date(clock.unsafeCurrentTimeMillis()).toISOString(),
            duration: round3(nowMs / 1000),
            channels: 1,
            models: [MODEL_UUID],
            model_info: { [MODEL_UUID]: MODEL_INFO }
          })
          closeWith(conn, 1000, "")
          break
        }
        default:
          // a text message the fake does not know: an Error and a close with DATA-0000 (Deepgram's
          // code for a payload it cannot decode), so a misspelt control fails a test loudly
          send(conn, {
            type: "Error",
            description: `Unknown message: ${text.slice(0, 100)}`,
            message: "",
            variant: "DATA-0000"
          })
          closeWith(conn, 1008, "DATA-0000")
      }
    }

    /** Closes the connection with NET-0001 once it has been idle for `inactivityMs` on the Clock. */
    const watchInactivity = (conn: Live) =>
      Effect.gen(function*() {
        while (!conn.ended) {
          const idle = clock.unsafeCurrentTimeMillis() - conn.lastActivity
          if (idle >= inactivityMs) {
            send(conn, {
              type: "Error",
              description: "Deepgram did not receive audio data or a text message within the timeout window.",
              message: "",
              variant: "NET-0001"
            })
            closeWith(conn, 1011, "NET-0001")
            return
          }
          yield* Effect.sleep(inactivityMs - idle)
        }
      })

    const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false })

    const onUpgrade = (request: http.IncomingMessage, socket: Duplex, head: Buffer) => {
      socket.on("error", () => {})
      const requestId = crypto.randomUUID()
      const url = new URL(request.url ?? "/", "http://localhost")
      const authorization = request.headers.authorization
      const query = Array.from(url.searchParams.entries())
      const refuseWith = (status: number, message: string) => {
        upgrades.push({ path: url.pathname + url.search, authorization, status })
        refuseUpgrade(
          socket,
          status,
          {
            err_code: status === 401
              ? "INVALID_AUTH"
              : status === 400
              ? "Bad Request"
              : status === 429
              ? "TOO_MANY_REQUESTS"
              : "INTERNAL_SERVER_ERROR",
            err_msg: message,
            request_id: requestId
          },
          { "dg-error": message, "dg-request-id": requestId }
        )
        waiters.wake()
      }
      const fault = refusals.shift()
      if (fault !== undefined) {
        return refuseWith(
          fault,
          fault === 401 || fault === 403 ? "Invalid credentials." : "The fake was told to refuse this connection."
        )
      }
      if (url.pathname !== "/v1/listen") return refuseWith(404, `Not found: ${url.pathname}`)
      if (authorization !== `Token ${apiKey}`) return refuseWith(401, "Invalid credentials.")
      const invalid = validateQuery(query)
      if (invalid !== undefined) return refuseWith(400, invalid)
      const keyterms = query.filter(([key]) => key === "keyterm").map(([, value]) => value)
      const scriptKey = keyterms.find((term) => options.scripts?.[term] !== undefined)
      const param = (name: string) => query.find(([key]) => key === name)?.[1]
      const endpointing = param("endpointing")
      const utteranceEnd = param("utterance_end_ms")
      upgrades.push({ path: url.pathname + url.search, authorization, status: 101 })
      wss.handleUpgrade(request, socket, head, (ws) => {
        Effect.runSync(Effect.gen(function*() {
          const stream = yield* vad.open
          const conn: Live = {
            record: {
              index: live.length,
              requestId,
              path: url.pathname + url.search,
              query,
              authorization,
              audioBytes: 0,
              audioMs: 0,
              audioMessages: 0,
              controls: [],
              keepAlives: 0,
              finalizes: 0,
              closeStreams: 0,
              sent: [],
              closed: undefined
            },
            ws,
            settings: {
              endpointingMs: endpointing === "false"
                ? false
                : endpointing === undefined
                ? DEFAULT_ENDPOINTING_MS
                : Number(endpointing),
              utteranceEndMs: utteranceEnd === undefined ? undefined : Number(utteranceEnd),
              vadEvents: param("vad_events") === "true",
              scriptKey
            },
            vad: stream,
            detector: initialDetector,
            remainder: new Uint8Array(0),
            frames: 0,
            segment: undefined,
            windowStartMs: 0,
            unclosedWords: false,
            lastSpeechEndMs: 0,
            lastWordEndMs: undefined,
            lastActivity: clock.unsafeCurrentTimeMillis(),
            dropAtMs: pendingDrops.shift(),
            chain: Promise.resolve(),
            ended: false
          }
          live.push(conn)
          ws.on("message", (data, isBinary) => {
            if (conn.ended) return
            const buffer = Buffer.isBuffer(data) ? data : Buffer.concat(data as Array<Buffer>)
            if (isBinary) onAudio(conn, buffer)
            else onControl(conn, buffer.toString("utf8"))
            waiters.wake()
          })
          ws.on("close", (code, reason) => {
            if (conn.record.closed === undefined) {
              update(conn, { closed: { code, reason: reason.toString("utf8"), by: "client" } })
            }
            conn.ended = true
            stream.close()
            waiters.wake()
          })
          ws.on("error", () => {})
          run(watchInactivity(conn))
          waiters.wake()
        }))
      })
    }

    const server = http.createServer((_request, response) => {
      response.writeHead(426, { "content-type": "text/plain" })
      response.end("Upgrade Required")
    })
    server.on("upgrade", onUpgrade)
    const port = yield* listen(server, () => {
      for (const conn of live) {
        conn.ended = true
        conn.ws.terminate()
      }
      wss.close()
    })

    const until = (label: string, ready: () => boolean, millis?: number) =>
      waiters.until(label, ready, millis, () => {
        const seen = live.map((c) => ({ ...c.record, sent: c.record.sent.length }))
        return `upgrades ${JSON.stringify(upgrades)}, connections ${JSON.stringify(seen)}`
      })

    const fake: FakeDeepgramServer = {
      url: `ws://127.0.0.1:${port}/v1/listen`,
      apiKey,
      upgrades: () => upgrades.slice(),
      connections: () => live.map((c) => c.record),
      refuse: (status, count = 1) => {
        for (let i = 0; i < count; i++) refusals.push(status)
      },
      disconnectAfter: (audioMs) => {
        const open = live.find((c) => !c.ended)
        if (open === undefined) pendingDrops.push(audioMs)
        else if (open.frames * FRAME_MS >= audioMs) dropConnection(open)
        else open.dropAtMs = audioMs
      },
      drop: () => {
        for (const conn of live) dropConnection(conn)
        waiters.wake()
      },
      setLatency: (millis) => {
        latencyMs = millis
      },
      until,
      awaitConnections: (count) => until(`${count} connection(s)`, () => live.length >= count),
      awaitUpgrades: (count) => until(`${count} upgrade request(s)`, () => upgrades.length >= count),
      awaitAudio: (index, audioMs) =>
        until(`${audioMs} ms of audio on connection ${index}`, () => (live[index]?.record.audioMs ?? 0) >= audioMs),
      awaitClosed: (index) => until(`connection ${index} to close`, () => live[index]?.record.closed !== undefined)
    }
    return fake
  })

/** The fake as a service, for `it.layer` and `Layer.provide`. */
export class FakeDeepgram extends Context.Tag("Testing/FakeDeepgram")<FakeDeepgram, FakeDeepgramServer>() {
  static readonly layer = (options: FakeDeepgramOptions = {}) => Layer.scoped(FakeDeepgram, make(options))
}
