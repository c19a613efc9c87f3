/**
 * WebSockets through the HTTP servers: a web call's stream comes in at the gateway, which forwards
 * it to the comms service, which forwards it to the runner that owns the call (or takes it in
 * process when that runner is this process). Forwarding is at the byte level: the upgrade request
 * goes on as it came (plus the forwarding headers), and once the next hop answers 101 the two
 * sockets are piped both ways, so close frames, codes and reasons reach the client unchanged.
 *
 * A server with an upgrade handler takes every request that asks to upgrade (node hands such
 * requests to it unparsed): anything it does not forward is answered here, in the error body, and
 * its connection closed.
 */
import type { ErrorBody } from "@voiceagent/domain/ApiError"
import * as http from "node:http"
import * as net from "node:net"
import type { Duplex } from "node:stream"
import { REQUEST_ID_HEADER, requestIdFor, securityHeaders } from "./RequestContext.js"

/** Takes a request to upgrade: node has parsed its head; `head` is what came after it. */
export type UpgradeHandler = (request: http.IncomingMessage, socket: Duplex, head: Buffer) => void

/** How long the next hop may take to answer a forwarded handshake. */
const HANDSHAKE_TIMEOUT_MS = 10_000

export const requestIdOf = (request: http.IncomingMessage): string => {
  const given = request.headers[REQUEST_ID_HEADER]
  return requestIdFor(typeof given === "string" ? given : undefined)
}

export const pathOfUrl = (url: string | undefined): string => (url ?? "").split("?")[0] ?? ""

export const isWebSocketUpgrade = (request: http.IncomingMessage): boolean =>
  (request.headers.upgrade ?? "").toLowerCase() === "websocket" && request.method === "GET"

/** Answers on the raw socket, in the standard error body, and closes the connection. */
export const answerRaw = (socket: Duplex, status: number, code: string, message: string, requestId: string) => {
  if (!socket.writable) {
    socket.destroy()
    return
  }
  const body: ErrorBody = { error: { code, message, requestId } }
  const text = JSON.stringify(body)
  const head = {
    "content-type": "application/json",
    "content-length": String(Buffer.byteLength(text)),
    connection: "close",
    [REQUEST_ID_HEADER]: requestId,
    ...securityHeaders
  }
  socket.end(
    `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\n${
      Object.entries(head).map(([k, v]) => `${k}: ${v}\r\n`).join("")
    }\r\n${text}`,
    () => socket.destroy()
  )
}

/** A request to upgrade that no route takes. */
export const refuseUpgrade = (request: http.IncomingMessage, socket: Duplex, allowed: string) =>
  answerRaw(
    socket,
    400,
    "UPGRADE_NOT_SUPPORTED",
    `Only ${allowed} upgrades to a WebSocket; send other requests without an Upgrade header`,
    requestIdOf(request)
  )

/** The request's headers for the next hop: as they came, with the hop's own host and where it came from. */
export const forwardedHeaders = (request: http.IncomingMessage, requestId: string): http.OutgoingHttpHeaders => {
  const { host, ...rest } = request.headers
  const remote = request.socket.remoteAddress ?? ""
  const forwardedFor = request.headers["x-forwarded-for"]
  return {
    ...rest,
    [REQUEST_ID_HEADER]: requestId,
    "x-forwarded-for": forwardedFor === undefined ? remote : `${String(forwardedFor)}, ${remote}`,
    "x-forwarded-host": request.headers["x-forwarded-host"] ?? host ?? "",
    "x-forwarded-proto": request.headers["x-forwarded-proto"] ?? "http"
  }
}

/**
 * Forwards the request to upgrade to `target` (`ws://` or `http://`, path included). The next hop's
 * answer comes back as it is: a 101 and then the stream both ways, or a refusal and the connection
 * closed. No answer within 10 s, or none at all, is a 502 in the error body.
 */
export const tunnel = (
  request: http.IncomingMessage,
  socket: Duplex,
  head: Buffer,
  target: string,
  requestId: string
) => {
  const url = new URL(target.replace(/^ws/, "http"))
  let settled = false
  const fail = (message: string) => {
    if (settled) return
    settled = true
    answerRaw(socket, 502, "UPSTREAM_UNAVAILABLE", message, requestId)
  }
  const upstream = http.request({
    protocol: url.protocol,
    hostname: url.hostname,
    port: url.port,
    path: `${url.pathname}${url.search}`,
    method: "GET",
    headers: { ...forwardedHeaders(request, requestId), host: url.host },
    agent: false,
    timeout: HANDSHAKE_TIMEOUT_MS
  })
  upstream.on("timeout", () => {
    if (settled) return
    fail("The stream's service did not answer in time")
    upstream.destroy()
  })
  upstream.on("error", () => fail("The stream's service is not reachable"))
  upstream.on("upgrade", (response, next, nextHead) => {
    if (settled || socket.destroyed) {
      next.destroy()
      return
    }
    settled = true
    const lines = [`HTTP/1.1 101 ${response.statusMessage ?? "Switching Protocols"}`]
    for (let i = 0; i + 1 < response.rawHeaders.length; i += 2) {
      lines.push(`${response.rawHeaders[i]}: ${response.rawHeaders[i + 1]}`)
    }
    socket.write(`${lines.join("\r\n")}\r\n\r\n`)
    if (nextHead.length > 0) socket.write(nextHead)
    if (head.length > 0) next.write(head)
    const both = () => {
      next.destroy()
      socket.destroy()
    }
    next.on("error", both)
    socket.on("error", both)
    next.on("close", both)
    socket.on("close", both)
    // a call's stream may be quiet for long: the handshake's timeout does not apply to it
    if (next instanceof net.Socket) {
      next.setTimeout(0)
      next.setNoDelay(true)
    }
    next.pipe(socket)
    socket.pipe(next)
  })
  upstream.on("response", (response) => {
    if (settled) {
      response.resume()
      return
    }
    settled = true
    const lines = [`HTTP/1.1 ${response.statusCode ?? 502} ${response.statusMessage ?? ""}`]
    for (let i = 0; i + 1 < response.rawHeaders.length; i += 2) {
      const name = response.rawHeaders[i]!.toLowerCase()
      if (name !== "connection" && name !== "keep-alive" && name !== "transfer-encoding") {
        lines.push(`${response.rawHeaders[i]}: ${response.rawHeaders[i + 1]}`)
      }
    }
    lines.push("connection: close")
    socket.write(`${lines.join("\r\n")}\r\n\r\n`)
    response.pipe(socket)
  })
  // the client going away before the next hop answered
  socket.once("close", () => {
    if (!settled) {
      settled = true
      upstream.destroy()
    }
  })
  upstream.end()
}
