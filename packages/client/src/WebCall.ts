/**
 * A web call from a browser or Node: mint the call with an API key, open its stream, send the
 * caller's audio, hear the agent and follow the transcript (the protocol: docs/web-calls.md).
 *
 * ```ts
 * const ticket = await startWebCall({ baseUrl: "http://127.0.0.1:3000", apiKey: "aok_…", agentId })
 * const call = joinWebCall(ticket, {
 *   onEvent: (event) => event.type === "transcript" && console.log(`${event.speaker}: ${event.text}`)
 * })
 * call.send(frame) // 20 ms of 16 kHz mono PCM, as it is recorded
 * const { reason } = await call.ended
 * ```
 *
 * Audio both ways is 16-bit mono PCM at 16 kHz (`SAMPLE_RATE`). The agent's audio comes with marks,
 * which the platform needs echoed once what came before them has played: it never sends more than
 * about 400 ms ahead of that, and it keeps in the transcript only what the caller heard. This client
 * plays the agent's audio on a clock of its own (each chunk after the one before, in real time) and
 * echoes each mark when the clock reaches it; `onAudio` receives the audio to play. A player that
 * knows better (a browser's audio graph) sets `echoMarks: false` and calls `echoMark` itself.
 *
 * No dependency: `WebSocket` is the global one (browsers, Node 22) unless given (in Node 20, `ws`).
 */

/** The stream's audio, both ways: 16-bit little-endian mono PCM at this rate. */
export const SAMPLE_RATE = 16_000
/** Samples in the 20 ms frames the caller's audio is sent in. */
export const FRAME_SAMPLES = SAMPLE_RATE / 50

/** What the client needs of a WebSocket: the browser's, Node's or `ws`'s. */
export interface WebSocketLike {
  binaryType: string
  readonly readyState: number
  send(data: string | ArrayBufferLike | ArrayBufferView): void
  close(code?: number, reason?: string): void
  onopen: ((event: unknown) => void) | null
  onmessage: ((event: { readonly data: unknown }) => void) | null
  onclose: ((event: { readonly code: number; readonly reason: string }) => void) | null
  onerror: ((event: unknown) => void) | null
}

export type WebSocketConstructor = new(url: string) => WebSocketLike

/** What `POST /api/v1/channels/web/call` answers. */
export interface WebCallTicket {
  readonly sessionId: string
  readonly url: string
  readonly token: string
  readonly expiresAt: string
}

/**
 * The platform refused to start the call (402 INSUFFICIENT_FUNDS, 404 AGENT_NOT_FOUND, 429 CONCURRENT_CALL_LIMIT, …).
 */
export class WebCallRefused extends Error {
  constructor(readonly status: number, readonly code: string, message: string) {
    super(`${status} ${code}: ${message}`)
    this.name = "WebCallRefused"
  }
}

/** The platform's error body (`{"error":{"code","message",…}}`), as a refusal answers it. */
interface ErrorAnswer {
  readonly error?: { readonly code?: string; readonly message?: string }
}

export interface StartWebCallOptions {
  /** The platform's origin, e.g. `http://127.0.0.1:3000`. */
  readonly baseUrl: string
  /** An API key (`aok_…`) or a dashboard session token. */
  readonly apiKey: string
  readonly agentId: string
  /** Kept on the call (its log, its detail, the call.ended webhook). */
  readonly metadata?: Readonly<Record<string, unknown>> | undefined
  /** Record the call (or not); absent: as the agent's settings say. */
  readonly record?: boolean | undefined
  readonly fetch?: typeof fetch | undefined
}

/** Starts a call with the agent: its session and its stream's one-use token. */
export const startWebCall = async (options: StartWebCallOptions): Promise<WebCallTicket> => {
  const doFetch = options.fetch ?? fetch
  const response = await doFetch(`${options.baseUrl.replace(/\/+$/, "")}/api/v1/channels/web/call`, {
    method: "POST",
    headers: { authorization: `Bearer ${options.apiKey}`, "content-type": "application/json" },
    body: JSON.stringify({
      agentId: options.agentId,
      ...(options.metadata === undefined ? {} : { metadata: options.metadata }),
      ...(options.record === undefined ? {} : { record: options.record })
    })
  })
  const text = await response.text()
  let body: WebCallTicket & ErrorAnswer | undefined
  try {
    body = JSON.parse(text)
  } catch {
    body = undefined
  }
  if (response.status !== 201) {
    throw new WebCallRefused(
      response.status,
      body?.error?.code ?? "UNKNOWN",
      body?.error?.message ?? text.slice(0, 200)
    )
  }
  return body as WebCallTicket
}

/** A message of the platform on the call's stream: its fields are read as its `type` says. */
interface StreamMessage {
  readonly type?: string
  readonly name?: unknown
  readonly sessionId?: unknown
  readonly speaker: "agent" | "customer"
  readonly text?: unknown
  readonly at?: unknown
  readonly interrupted?: unknown
  readonly digits?: unknown
  readonly reason?: unknown
}

export type WebCallEvent =
  | { readonly type: "started"; readonly sessionId: string }
  | {
    readonly type: "transcript"
    readonly speaker: "agent" | "customer"
    readonly text: string
    readonly at: string
    readonly interrupted: boolean
  }
  /** The agent's audio stopped for the caller's speech: what was not played yet is dropped. */
  | { readonly type: "clear" }
  /** The agent pressed keys (to navigate a phone menu the client plays). */
  | { readonly type: "dtmf"; readonly digits: string }
  /** The call is over; `reason` is its end reason (agent_hangup, max_duration, …). */
  | { readonly type: "end"; readonly reason: string }

export interface JoinWebCallOptions {
  readonly onEvent?: ((event: WebCallEvent) => void) | undefined
  /** The agent's audio, 16 kHz PCM, in the order it is to be played. */
  readonly onAudio?: ((pcm: Int16Array) => void) | undefined
  /** Echo marks on this client's playback clock (default true). */
  readonly echoMarks?: boolean | undefined
  readonly WebSocket?: WebSocketConstructor | undefined
}

export interface WebCall {
  readonly sessionId: string
  /** Sends the caller's audio: 16 kHz mono PCM, a frame of 20 ms at a time, as it is recorded. */
  readonly send: (pcm: Int16Array) => void
  /** Sends a raw message on the stream (tests of the protocol). */
  readonly sendRaw: (data: string | Uint8Array) => void
  /** Tells the platform the mark's audio has played (with `echoMarks: false`). */
  readonly echoMark: (name: string) => void
  readonly dtmf: (digit: string) => void
  /** The caller hangs up. */
  readonly hangup: () => void
  /** Closes the socket without a word (a dropped connection, for the platform). */
  readonly drop: () => void
  /** Whether the agent's audio is still playing on this client's clock. */
  readonly agentSpeaking: () => boolean
  /** Milliseconds of the agent's audio played on this client's clock so far. */
  readonly heardMs: () => number
  /** Settles when the socket closes: the `end` reason when the platform ended the call, and the close. */
  readonly ended: Promise<{ readonly reason: string | undefined; readonly code: number; readonly closeReason: string }>
}

const bytesOf = (pcm: Int16Array): Uint8Array => {
  const bytes = new Uint8Array(pcm.length * 2)
  const view = new DataView(bytes.buffer)
  for (let i = 0; i < pcm.length; i++) view.setInt16(2 * i, pcm[i]!, true)
  return bytes
}

const samplesOf = (data: ArrayBuffer | Uint8Array): Int16Array => {
  const bytes = data instanceof Uint8Array ? data : new Uint8Array(data)
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const pcm = new Int16Array(bytes.byteLength >> 1)
  for (let i = 0; i < pcm.length; i++) pcm[i] = view.getInt16(2 * i, true)
  return pcm
}

/** Opens the call's stream with its ticket and starts it. */
export const joinWebCall = (ticket: WebCallTicket, options: JoinWebCallOptions = {}): WebCall => {
  const Socket = options.WebSocket ?? (globalThis as unknown as { WebSocket?: WebSocketConstructor }).WebSocket
  if (Socket === undefined) {
    throw new TypeError("joinWebCall: no WebSocket here; pass one (in Node 20: the ws package's)")
  }
  const echoMarks = options.echoMarks ?? true
  const socket = new Socket(ticket.url)
  socket.binaryType = "arraybuffer"
  const sendRaw = (data: string | Uint8Array) => {
    if (socket.readyState === 1) socket.send(data)
  }
  const sendJson = (message: unknown) => sendRaw(JSON.stringify(message))

  // the playback clock: the agent's audio plays in real time, each chunk after the one before
  let playedUntil = 0
  let playedMs = 0
  const timers = new Set<ReturnType<typeof setTimeout>>()
  const pendingMarks = new Map<string, ReturnType<typeof setTimeout>>()
  let endReason: string | undefined

  socket.onopen = () => sendJson({ type: "start", token: ticket.token, sampleRate: SAMPLE_RATE })
  socket.onmessage = (event) => {
    if (typeof event.data !== "string") {
      const pcm = samplesOf(event.data as ArrayBuffer | Uint8Array)
      const now = Date.now()
      const ms = (pcm.length * 1_000) / SAMPLE_RATE
      playedUntil = Math.max(playedUntil, now) + ms
      playedMs += ms
      options.onAudio?.(pcm)
      return
    }
    let message: StreamMessage | null
    try {
      message = JSON.parse(event.data)
    } catch {
      return
    }
    switch (message?.type) {
      case "mark": {
        if (!echoMarks) return
        const name = String(message.name)
        const timer = setTimeout(() => {
          timers.delete(timer)
          pendingMarks.delete(name)
          sendJson({ type: "mark", name })
        }, Math.max(0, playedUntil - Date.now()))
        timers.add(timer)
        pendingMarks.set(name, timer)
        return
      }
      case "clear": {
        // what was not played is dropped; its marks come back at once
        const now = Date.now()
        playedMs -= Math.max(0, playedUntil - now)
        playedUntil = now
        for (const [name, timer] of pendingMarks) {
          clearTimeout(timer)
          timers.delete(timer)
          sendJson({ type: "mark", name })
        }
        pendingMarks.clear()
        options.onEvent?.({ type: "clear" })
        return
      }
      case "started":
        options.onEvent?.({ type: "started", sessionId: String(message.sessionId) })
        return
      case "transcript":
        options.onEvent?.({
          type: "transcript",
          speaker: message.speaker,
          text: String(message.text),
          at: String(message.at),
          interrupted: message.interrupted === true
        })
        return
      case "dtmf":
        options.onEvent?.({ type: "dtmf", digits: String(message.digits) })
        return
      case "end":
        endReason = String(message.reason)
        options.onEvent?.({ type: "end", reason: endReason })
        return
      default:
        return
    }
  }
  const ended = new Promise<{ reason: string | undefined; code: number; closeReason: string }>((resolve) => {
    socket.onclose = (event) => {
      for (const timer of timers) clearTimeout(timer)
      timers.clear()
      resolve({ reason: endReason, code: event.code, closeReason: event.reason })
    }
  })
  socket.onerror = () => undefined

  return {
    sessionId: ticket.sessionId,
    send: (pcm) => sendRaw(bytesOf(pcm)),
    sendRaw,
    echoMark: (name) => sendJson({ type: "mark", name }),
    dtmf: (digit) => sendJson({ type: "dtmf", digit }),
    hangup: () => {
      sendJson({ type: "hangup" })
      socket.close(1000, "hung up")
    },
    drop: () => socket.close(4000, "dropped"),
    agentSpeaking: () => playedUntil > Date.now(),
    heardMs: () => playedMs - Math.max(0, playedUntil - Date.now()),
    ended
  }
}

/**
 * Sends `pcm` (16 kHz) in 20 ms frames at the pace it was recorded; resolves when the last frame
 * is sent, or when `stop` says so.
 */
export const streamInRealTime = async (
  call: WebCall,
  pcm: Int16Array,
  stop: () => boolean = () => false
): Promise<void> => {
  const startedAt = Date.now()
  for (let frame = 0; frame * FRAME_SAMPLES < pcm.length; frame++) {
    if (stop()) return
    const due = startedAt + frame * 20
    const wait = due - Date.now()
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait))
    const chunk = new Int16Array(FRAME_SAMPLES)
    chunk.set(pcm.subarray(frame * FRAME_SAMPLES, Math.min(pcm.length, (frame + 1) * FRAME_SAMPLES)))
    call.send(chunk)
  }
}

/** A 16-bit mono WAV file's samples at 16 kHz (other rates are brought to it by linear interpolation). */
export const wavTo16k = (file: Uint8Array): Int16Array => {
  const view = new DataView(file.buffer, file.byteOffset, file.byteLength)
  const text = (at: number) => String.fromCharCode(...file.subarray(at, at + 4))
  if (file.length < 12 || text(0) !== "RIFF" || text(8) !== "WAVE") throw new TypeError("not a WAV file")
  let at = 12
  let rate = 0
  let bits = 0
  let channels = 0
  while (at + 8 <= file.length) {
    const size = view.getUint32(at + 4, true)
    if (text(at) === "fmt ") {
      channels = view.getUint16(at + 10, true)
      rate = view.getUint32(at + 12, true)
      bits = view.getUint16(at + 22, true)
    } else if (text(at) === "data") {
      if (bits !== 16 || channels !== 1 || rate === 0) throw new TypeError("the WAV file must be 16-bit mono PCM")
      const pcm = samplesOf(file.subarray(at + 8, Math.min(file.length, at + 8 + size)))
      if (rate === SAMPLE_RATE) return pcm
      const out = new Int16Array(Math.floor((pcm.length * SAMPLE_RATE) / rate))
      for (let i = 0; i < out.length; i++) {
        const x = (i * rate) / SAMPLE_RATE
        const j = Math.floor(x)
        const next = pcm[Math.min(j + 1, pcm.length - 1)]!
        out[i] = Math.round(pcm[j]! + (next - pcm[j]!) * (x - j))
      }
      return out
    }
    at += 8 + size + (size % 2)
  }
  throw new TypeError("the WAV file has no audio")
}
