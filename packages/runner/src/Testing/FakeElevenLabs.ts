/**
 * A fake of ElevenLabs' multi-context text-to-speech WebSocket on a loopback port, for tests, built
 * from its documented messages
 * (https://elevenlabs.io/docs/api-reference/text-to-speech/v-1-text-to-speech-voice-id-multi-stream-input, the AsyncAPI
 * spec in elevenlabs/elevenlabs-docs `fern/apis/api/asyncapi.yml`) and from what the live
 * service is known to do where the docs say little (pipecat's and LiveKit's ElevenLabs clients):
 *
 * - the handshake: `GET /v1/text-to-speech/{voice_id}/multi-stream-input?model_id=…&output_format=…`
 *   with the `xi-api-key` header. Another path is a 404; a key that is missing or wrong is a 401
 *   with ElevenLabs' `{detail: {status: "invalid_api_key", message}}`; an `output_format` other than
 *   `ulaw_8000` is a 400 (the fake speaks μ-law only, the telephone's format); an unknown `model_id`
 *   is a 400 (`eleven_v3` has no multi-context socket). The query is recorded (`sync_alignment`,
 *   `inactivity_timeout`, `language_code`…);
 * - client messages (JSON text frames): `{text, context_id, flush?, voice_settings?, …}` adds text to
 *   a context (opening it; text should end with a space, `""` only keeps it alive), `{context_id,
 *   flush: true}` generates what it holds, `{context_id, close_context: true}` closes it: what was
 *   sent so far is still spoken, then `{isFinal: true, contextId}` is the context's last message
 *   (the docs: "sent when a context is closed"; the clients close right after their last flush so
 *   that isFinal comes with the last audio; closing does not discard text already sent), and
 *   `{close_socket: true}` closes every context that way, then the socket. At most five contexts
 *   are open on a socket at once (a context counts until its isFinal);
 * - server messages: for each flushed piece of text, its audio in several messages
 *   `{audio: base64 μ-law 8 kHz, isFinal: false, normalizedAlignment, alignment, contextId}`,
 *   `charsPerChunk` characters each, where each alignment is `{chars, charStartTimesMs,
 *   charDurationsMs}` (the spelling the live API sends and its clients read; the docs' schema spells
 *   `charsDurationsMs`) and, as the docs say, its times count from the start of that message's audio
 *   (`alignment: "cumulative"` counts from the start of the context's audio instead).
 *
 * The audio is `FakeVoice.fakeSpeech` (60 ms per character, voiced letters, silent spaces) of the
 * text with surrounding whitespace dropped, consistent with the alignment. The first audio of each
 * flush waits `ttfbMillis`; messages are `chunkIntervalMillis` apart (real time).
 *
 * Everything is recorded: connections, client messages, each context's text, the audio messages it
 * sent and when a `close_context` came (`closeAfterChunks`), and protocol mistakes (`violations`:
 * unknown fields, a text without its trailing space, text for a closed context, a sixth context).
 * Faults: the next handshake refused (`RefuseAuth`, `Refuse` with any status), accepted and then
 * closed (`CloseOnConnect`, e.g. 1008 "Invalid API key"), every socket dropped (`dropConnections`,
 * no close frame), or the socket dropped after some audio of the next context (`dropAfterChunks`).
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import * as http from "node:http"
import type * as stream from "node:stream"
import { type RawData, type WebSocket, WebSocketServer } from "ws"
import { mulawEncode, SAMPLE_RATE } from "../Voice/Audio.js"
import { headersOf, listen, makeSleeper, makeWaiters, record, refuseUpgrade } from "./FakeHttp.js"
import { FAKE_MS_PER_CHAR, fakeSpeech, spokenText } from "./FakeVoice.js"

export const FAKE_ELEVENLABS_API_KEY = "fake-elevenlabs-key-0123456789"
export const FAKE_ELEVENLABS_MODELS = [
  "eleven_flash_v2_5",
  "eleven_turbo_v2_5",
  "eleven_flash_v2",
  "eleven_turbo_v2",
  "eleven_multilingual_v2"
]
const PATH = /^\/v1\/text-to-speech\/([^/]+)\/multi-stream-input$/
const CLIENT_FIELDS = new Set([
  "text",
  "context_id",
  "flush",
  "close_context",
  "close_socket",
  "voice_settings",
  "generation_config",
  "pronunciation_dictionary_locators",
  "xi_api_key",
  "authorization",
  "try_trigger_generation"
])
const MAX_CONTEXTS = 5

export interface FakeElevenLabsConnection {
  readonly id: number
  readonly voiceId: string
  /** The query string's parameters. */
  readonly query: Readonly<Record<string, string>>
  /** Header names in lower case. */
  readonly headers: Readonly<Record<string, string>>
}

export interface FakeElevenLabsContext {
  readonly id: string
  readonly connection: number
  /** All the text the context received, in order. */
  readonly text: string
  /** Audio messages sent for it. */
  readonly audioMessages: number
  /** Milliseconds of audio sent for it. */
  readonly audioMs: number
  /** How many audio messages had been sent when its `close_context` came; undefined if none came. */
  readonly closeAfterChunks: number | undefined
  readonly finalSent: boolean
}

/** What the fake does with the next handshake. */
export type FakeElevenLabsFault =
  /** 401 with ElevenLabs' invalid-key body, whatever the key. */
  | { readonly _tag: "RefuseAuth" }
  /** Refuse the upgrade with this status and body. */
  | { readonly _tag: "Refuse"; readonly status: number; readonly body?: unknown }
  /** Accept the socket, then close it with this code and reason at once. */
  | { readonly _tag: "CloseOnConnect"; readonly code: number; readonly reason: string }

export interface FakeElevenLabsOptions {
  /** The key `xi-api-key` must carry; `FAKE_ELEVENLABS_API_KEY` unless given. */
  readonly apiKey?: string
  /** Characters of text per audio message; 8 unless given. */
  readonly charsPerChunk?: number
  /** Real time from a flush to its first audio; 0 unless given. */
  readonly ttfbMillis?: number
  /** Real time between audio messages; 5 ms unless given. */
  readonly chunkIntervalMillis?: number
  /** Alignment times from the start of each message's audio (the docs), or of the context's; "chunk" unless given. */
  readonly alignment?: "chunk" | "cumulative"
}

export interface FakeElevenLabsServer {
  /** The base URL to configure: `ws://127.0.0.1:{port}`. */
  readonly url: string
  readonly apiKey: string
  readonly connections: () => ReadonlyArray<FakeElevenLabsConnection>
  /** Sockets open now. */
  readonly openConnections: () => number
  /** Client messages, parsed, in order. */
  readonly received: () => ReadonlyArray<{ readonly connection: number; readonly message: unknown }>
  /** Server messages sent, in order. */
  readonly sent: () => ReadonlyArray<
    { readonly connection: number; readonly message: Readonly<Record<string, unknown>> }
  >
  readonly contexts: () => ReadonlyArray<FakeElevenLabsContext>
  readonly context: (id: string) => FakeElevenLabsContext | undefined
  readonly violations: () => ReadonlyArray<string>
  /** Queues a fault for the next handshake. */
  readonly fault: (fault: FakeElevenLabsFault) => void
  /** Drops every open socket without a close frame, as a network failure would. */
  readonly dropConnections: () => void
  /** Drops the socket after this many audio messages of the next context that speaks. */
  readonly dropAfterChunks: (chunks: number) => void
  readonly setTtfb: (millis: number) => void
  /** Waits (real time, 30 s unless given) until `count` handshakes have been accepted. */
  readonly awaitConnections: (count: number, millis?: number) => Effect.Effect<void>
  /** Waits (real time, 30 s unless given) until exactly `count` sockets are open (each close wakes it). */
  readonly awaitOpenConnections: (count: number, millis?: number) => Effect.Effect<void>
  /** Waits (real time, 30 s unless given) until the context has sent its isFinal, or its socket is gone. */
  readonly awaitContextDone: (id: string, millis?: number) => Effect.Effect<void>
}

interface ContextState {
  readonly id: string
  readonly connection: ConnectionState
  buffer: string
  text: string
  audioMessages: number
  audioSamples: number
  closeAfterChunks: number | undefined
  closing: boolean
  finalSent: boolean
  /** Generation in order: each flush and the close wait for the ones before. */
  work: Promise<void>
}

interface ConnectionState {
  readonly id: number
  readonly socket: WebSocket
  readonly contexts: Map<string, ContextState>
  gone: boolean
}

const detail = (status: string, message: string) => ({ detail: { status, message } })

/** Starts the fake on 127.0.0.1 and a free port; it stops when the scope closes. */
export const make = (options: FakeElevenLabsOptions = {}): Effect.Effect<FakeElevenLabsServer, never, Scope.Scope> =>
  Effect.gen(function*() {
    const apiKey = options.apiKey ?? FAKE_ELEVENLABS_API_KEY
    const charsPerChunk = options.charsPerChunk ?? 8
    const chunkIntervalMillis = options.chunkIntervalMillis ?? 5
    const cumulative = options.alignment === "cumulative"
    let ttfbMillis = options.ttfbMillis ?? 0
    const samplesPerChar = (SAMPLE_RATE * FAKE_MS_PER_CHAR) / 1_000

    const connections: Array<FakeElevenLabsConnection> = []
    const live = new Set<ConnectionState>()
    const received: Array<{ readonly connection: number; readonly message: unknown }> = []
    const sent: Array<{ readonly connection: number; readonly message: Readonly<Record<string, unknown>> }> = []
    const contexts: Array<ContextState> = []
    const violations: Array<string> = []
    const faults: Array<FakeElevenLabsFault> = []
    const waiters = makeWaiters("FakeElevenLabs")
    const { sleep, wakeAll } = makeSleeper()
    let dropAfter: number | undefined

    const violation = (connection: ConnectionState, what: string) => {
      violations.push(`connection ${connection.id}: ${what}`)
    }

    const send = (connection: ConnectionState, message: Readonly<Record<string, unknown>>) => {
      if (connection.gone) return false
      sent.push({ connection: connection.id, message })
      connection.socket.send(JSON.stringify(message))
      return true
    }

    const drop = (connection: ConnectionState) => {
      if (connection.gone) return
      connection.gone = true
      connection.socket.terminate()
      waiters.wake()
    }

    /** Speaks `text` for the context: its audio, `charsPerChunk` characters a message. */
    const speak = async (context: ContextState, text: string) => {
      const chars = [...spokenText(text)]
      if (chars.length === 0) return
      const pcm = fakeSpeech(text, SAMPLE_RATE)
      await sleep(ttfbMillis)
      for (let first = 0; first < chars.length; first += charsPerChunk) {
        if (context.connection.gone) return
        const slice = chars.slice(first, first + charsPerChunk)
        const audio = pcm.subarray(first * samplesPerChar, (first + slice.length) * samplesPerChar)
        const from = cumulative ? ((context.audioSamples / SAMPLE_RATE) * 1_000) : 0
        const alignment = {
          chars: slice,
          charStartTimesMs: slice.map((_, i) => from + i * FAKE_MS_PER_CHAR),
          charDurationsMs: slice.map(() => FAKE_MS_PER_CHAR)
        }
        send(context.connection, {
          audio: Buffer.from(mulawEncode(audio)).toString("base64"),
          isFinal: false,
          normalizedAlignment: alignment,
          alignment,
          contextId: context.id
        })
        context.audioMessages++
        context.audioSamples += audio.length
        if (dropAfter !== undefined && context.audioMessages >= dropAfter) {
          dropAfter = undefined
          drop(context.connection)
          return
        }
        await sleep(chunkIntervalMillis)
      }
    }

    const flush = (context: ContextState) => {
      const text = context.buffer
      context.buffer = ""
      context.work = context.work.then(() => speak(context, text))
    }

    const close = (context: ContextState) => {
      if (context.closing) return
      context.closing = true
      context.closeAfterChunks = context.audioMessages
      flush(context)
      context.work = context.work.then(() => {
        if (send(context.connection, { isFinal: true, contextId: context.id })) context.finalSent = true
        context.connection.contexts.delete(context.id)
        waiters.wake()
      })
    }

    const onMessage = (connection: ConnectionState, data: RawData) => {
      let message: unknown
      try {
        message = JSON.parse(String(data))
      } catch {
        violation(connection, `not JSON: ${String(data).slice(0, 80)}`)
        return
      }
      received.push({ connection: connection.id, message })
      const fields = record(message)
      for (const key of Object.keys(fields)) if (!CLIENT_FIELDS.has(key)) violation(connection, `unknown field ${key}`)
      if (fields.close_socket === true) {
        for (const context of connection.contexts.values()) close(context)
        void Promise.all([...connection.contexts.values()].map((c) => c.work)).then(() => {
          if (!connection.gone) connection.socket.close(1000)
        })
        return
      }
      const id = typeof fields.context_id === "string" ? fields.context_id : undefined
      if (id === undefined) {
        violation(connection, `a message without context_id: ${JSON.stringify(message).slice(0, 80)}`)
        return
      }
      let context = connection.contexts.get(id)
      const closed = contexts.some((c) => c.id === id && c.connection === connection && c.closing)
      if (context?.closing === true || (context === undefined && closed)) {
        violation(connection, `a message for context ${id} after its close_context`)
        return
      }
      if (fields.close_context === true) {
        if (context === undefined) violation(connection, `close_context for unknown context ${id}`)
        else close(context)
        return
      }
      if (context === undefined) {
        if (connection.contexts.size >= MAX_CONTEXTS) {
          violation(connection, `a sixth context ${id} (at most ${MAX_CONTEXTS} at once)`)
          return
        }
        context = {
          id,
          connection,
          buffer: "",
          text: "",
          audioMessages: 0,
          audioSamples: 0,
          closeAfterChunks: undefined,
          closing: false,
          finalSent: false,
          work: Promise.resolve()
        }
        connection.contexts.set(id, context)
        contexts.push(context)
      }
      if (fields.text !== undefined) {
        if (typeof fields.text !== "string") {
          violation(connection, `text is not a string in context ${id}`)
        } else if (fields.text !== "") {
          if (!fields.text.endsWith(" ")) violation(connection, `text without its trailing space in context ${id}`)
          context.buffer += fields.text
          context.text += fields.text
        }
      }
      if (fields.flush === true) flush(context)
      waiters.wake()
    }

    const server = http.createServer((_, response) => {
      response.writeHead(426, { "content-type": "application/json" })
      response.end(JSON.stringify(detail("upgrade_required", "This endpoint is a WebSocket")))
    })
    const sockets = new WebSocketServer({ noServer: true })

    server.on("upgrade", (request: http.IncomingMessage, socket: stream.Duplex, head: Buffer) => {
      const url = new URL(request.url ?? "/", "http://localhost")
      const headers = headersOf(request)
      const query = Object.fromEntries(url.searchParams)
      const path = PATH.exec(url.pathname)
      const fault = faults.shift()
      if (path === null) return refuseUpgrade(socket, 404, { detail: "Not Found" })
      if (fault?._tag === "RefuseAuth" || headers["xi-api-key"] !== apiKey) {
        return refuseUpgrade(socket, 401, detail("invalid_api_key", "Invalid API key"))
      }
      if (fault?._tag === "Refuse") {
        return refuseUpgrade(socket, fault.status, fault.body ?? detail("error", "Refused by the fake"))
      }
      if (query.output_format !== "ulaw_8000") {
        return refuseUpgrade(
          socket,
          400,
          detail("invalid_output_format", `FakeElevenLabs speaks ulaw_8000 only, not ${query.output_format}`)
        )
      }
      if (query.model_id !== undefined && !FAKE_ELEVENLABS_MODELS.includes(query.model_id)) {
        return refuseUpgrade(
          socket,
          400,
          detail(
            "model_not_found",
            `A model with model ID ${query.model_id} does not exist or has no multi-context socket`
          )
        )
      }
      sockets.handleUpgrade(request, socket, head, (ws) => {
        const connection: ConnectionState = { id: connections.length + 1, socket: ws, contexts: new Map(), gone: false }
        connections.push({ id: connection.id, voiceId: decodeURIComponent(path[1]!), query, headers })
        live.add(connection)
        ws.on("message", (data) => onMessage(connection, data))
        ws.on("close", () => {
          connection.gone = true
          live.delete(connection)
          waiters.wake()
        })
        ws.on("error", () => drop(connection))
        waiters.wake()
        if (fault?._tag === "CloseOnConnect") {
          connection.gone = true
          ws.close(fault.code, fault.reason)
        }
      })
    })

    const port = yield* listen(server, () => {
      for (const connection of live) drop(connection)
      wakeAll()
      sockets.close()
    })

    const view = (context: ContextState): FakeElevenLabsContext => ({
      id: context.id,
      connection: context.connection.id,
      text: context.text,
      audioMessages: context.audioMessages,
      audioMs: (context.audioSamples / SAMPLE_RATE) * 1_000,
      closeAfterChunks: context.closeAfterChunks,
      finalSent: context.finalSent
    })

    const fake: FakeElevenLabsServer = {
      url: `ws://127.0.0.1:${port}`,
      apiKey,
      connections: () => connections.slice(),
      openConnections: () => live.size,
      received: () => received.slice(),
      sent: () => sent.slice(),
      contexts: () => contexts.map(view),
      context: (id) => {
        const found = contexts.filter((c) => c.id === id).at(-1)
        return found === undefined ? undefined : view(found)
      },
      violations: () => violations.slice(),
      fault: (fault) => void faults.push(fault),
      dropConnections: () => {
        for (const connection of live) drop(connection)
      },
      dropAfterChunks: (chunks) => {
        dropAfter = chunks
      },
      setTtfb: (millis) => {
        ttfbMillis = millis
      },
      awaitConnections: (count, millis) =>
        waiters.until(`${count} connection(s)`, () => connections.length >= count, millis),
      awaitOpenConnections: (count, millis) =>
        waiters.until(`${count} open connection(s)`, () => live.size === count, millis, () => `saw ${live.size}`),
      awaitContextDone: (id, millis) =>
        waiters.until(`context ${id} to end`, () => {
          const context = contexts.filter((c) => c.id === id).at(-1)
          return context !== undefined && (context.finalSent || context.connection.gone)
        }, millis)
    }
    return fake
  })

/** The fake as a service, for `it.layer` and `Layer.provide`. */
export class FakeElevenLabs extends Context.Tag("Testing/FakeElevenLabs")<FakeElevenLabs, FakeElevenLabsServer>() {
  static readonly layer = (options: FakeElevenLabsOptions = {}) => Layer.scoped(FakeElevenLabs, make(options))
}
