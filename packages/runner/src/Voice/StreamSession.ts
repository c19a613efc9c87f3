/**
 * What a carrier's media WebSocket handler (TwilioMedia, TelnyxMedia) does whatever the carrier's
 * frames: JSON out while the socket is open, the start timeout, the stream token's one use, and the
 * socket's events (a message the handler did not foresee ends its stream, never the process).
 */
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import type * as Redacted from "effect/Redacted"
import type { RawData, WebSocket } from "ws"
import { verifyMediaToken } from "./Media.js"

/** A stream that sends nothing useful this long after connecting is closed. */
export const START_TIMEOUT_MS = 10_000

/** A close frame's reason is at most 123 bytes of UTF-8 (RFC 6455), or `ws` throws: cut at a character's start. */
export const closeReason = (reason: string): string => {
  const bytes = Buffer.from(reason, "utf8")
  if (bytes.length <= 123) return reason
  let end = 123
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--
  return bytes.subarray(0, end).toString("utf8")
}

/** Sends `message` as JSON while the socket is open. */
export const sendJson = (socket: WebSocket) => (message: unknown): Effect.Effect<void> =>
  Effect.sync(() => {
    if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(message))
  })

/**
 * Calls `expire` START_TIMEOUT_MS from now (on the runtime's Clock,
 * like every timer of the platform); answers the timer's stop.
 */
export const startTimeout = (
  run: (effect: Effect.Effect<void>) => Fiber.RuntimeFiber<void>,
  expire: () => void
): () => void => {
  const timer = run(Effect.sleep(START_TIMEOUT_MS).pipe(Effect.zipRight(Effect.sync(expire))))
  return () => {
    run(Fiber.interrupt(timer))
  }
}

/**
 * A stream's token: its call's session and expiry, or why the stream is refused (`sessionId` when the token was valid).
 */
export const checkToken = (
  options: { readonly secret: Redacted.Redacted; readonly used: Map<string, number> },
  token: string,
  at: number
): { readonly sessionId: string; readonly expiresAt: number } | {
  readonly refused: string
  readonly sessionId?: string
} => {
  const checked = verifyMediaToken(options.secret, token, at)
  if ("_tag" in checked) return { refused: `token ${checked.reason}` }
  if (options.used.has(token)) return { refused: "token already used", sessionId: checked.sessionId }
  return checked
}

/** Takes the token's one use, forgetting the used tokens expired by `at`. */
export const useToken = (used: Map<string, number>, token: string, expiresAt: number, at: number): void => {
  for (const [seen, expires] of used) if (expires < at) used.delete(seen)
  used.set(token, expiresAt)
}

/** Wires the socket's events to the handler: `annotations` go first in every log line. */
export const wireSocket = (socket: WebSocket, handler: {
  readonly onMessage: (data: RawData, isBinary: boolean) => void
  readonly end: (reason: string) => void
  readonly stopStartTimer: () => void
  readonly sessionId: () => string | undefined
  readonly log: (message: string, annotations: Record<string, unknown>) => void
  readonly annotations: Record<string, unknown>
}): void => {
  socket.on("message", (data, isBinary) => {
    try {
      handler.onMessage(data, isBinary)
    } catch (error) {
      handler.log("media stream failed", {
        ...handler.annotations,
        sessionId: handler.sessionId(),
        error: String(error)
      })
      handler.end("the media stream failed")
      socket.close(1011)
    }
  })
  socket.on("close", () => {
    handler.stopStartTimer()
    handler.end("the media socket closed")
  })
  socket.on("error", (error) => {
    handler.log("media socket error", { ...handler.annotations, error: error.message })
    handler.end(`the media socket failed: ${error.message}`)
  })
}

/** Hands a started stream to its call; `refused()` when no call in this process takes it. */
export const attachOrRefuse = (
  run: (effect: Effect.Effect<void>) => Fiber.RuntimeFiber<void>,
  attach: Effect.Effect<boolean>,
  refused: () => void
): void => {
  run(Effect.flatMap(attach, (taken) => Effect.sync(() => taken ? undefined : refused())))
}
