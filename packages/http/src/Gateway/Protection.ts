/**
 * What the gateway does before it proxies: CORS for browser clients, rate limiting (token buckets
 * per API key, and per client IP address for requests without one), and request body limits.
 * The gateway is the platform's edge, so this is the one place clients are held to them.
 */
import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { MAX_CSV_BYTES } from "@voiceagent/domain/CampaignApi"
import {
  MAX_DOCUMENT_CHARS,
  MAX_FAQ_ANSWER,
  MAX_FAQ_PAIRS,
  MAX_FAQ_QUESTION,
  MAX_UPLOAD_BYTES,
  MAX_UPLOAD_FILES
} from "@voiceagent/domain/KnowledgeBases"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as crypto from "node:crypto"
import * as net from "node:net"
import { isWellFormedApiKey } from "../Auth/ApiKeyFormat.js"
import { parseAuthorization } from "../Auth/Credentials.js"
import {
  declaredLength,
  errorResponse,
  hasBody,
  pathOf,
  payloadTooLarge,
  REQUEST_ID_HEADER,
  withHeaders
} from "../RequestContext.js"
import { DOCS_PATH, OPENAPI_PATH } from "../Serve.js"
import { RequestBodyLimit } from "./Proxy.js"
import { type RateLimit, TokenBuckets, type Verdict } from "./TokenBuckets.js"

export type { RateLimit, Verdict } from "./TokenBuckets.js"

export interface ProtectionOptions {
  /** Each API key's bucket; `undefined`: API keys are not rate limited. */
  readonly apiKeyRate: RateLimit | undefined
  /** Each client IP address's bucket, for requests without an API key; `undefined`: not limited. */
  readonly ipRate: RateLimit | undefined
  /** Proxies in front of the gateway that append to `X-Forwarded-For` (0: the connection's address is the client's). */
  readonly trustedProxyHops: number
  /** Body limit of every route but the large-body ones, in bytes. */
  readonly maxBodyBytes: number
  /** Ceiling of the large-body routes' limits, in bytes. */
  readonly maxUploadBytes: number
  /** Origins browsers may call from (exact, as `scheme://host[:port]`), or `*`; `undefined`: no CORS at all. */
  readonly corsOrigins: ReadonlyArray<string> | "*" | undefined
  /** Buckets remembered per kind (keys, addresses) before the least recently used are dropped. */
  readonly maxBuckets?: number
}

const KiB = 1024
const MiB = 1024 * KiB

/** What `npm start` uses; the configuration variables' defaults. */
export const defaultProtection: ProtectionOptions = {
  apiKeyRate: { perSecond: 20, burst: 100 },
  ipRate: { perSecond: 10, burst: 50 },
  trustedProxyHops: 0,
  maxBodyBytes: MiB,
  maxUploadBytes: 101 * MiB,
  corsOrigins: undefined
}

export const DEFAULT_MAX_BUCKETS = 100_000

// ---------------------------------------------------------------------------
// Body limits
// ---------------------------------------------------------------------------

/** Room for multipart boundaries and part headers around the files. */
const MULTIPART_FRAMING = MiB

/** A character of JSON text is at most 3 bytes of UTF-8 (a surrogate pair, 2 characters, is 4). */
const UTF8_BYTES_PER_CHAR = 3

export interface LargeBodyRoute {
  readonly method: string
  readonly pattern: RegExp
  /** The route's documented maximum, in bytes. */
  readonly bytes: number
  readonly description: string
}

/**
 * Routes whose documented maxima exceed an ordinary JSON body, with limits derived from them.
 * Everything else gets `maxBodyBytes`.
 */
export const LargeBodyRoutes: ReadonlyArray<LargeBodyRoute> = [
  {
    method: "POST",
    pattern: /^\/api\/v1\/contact-lists\/[^/]+\/upload$/,
    bytes: MAX_CSV_BYTES + MULTIPART_FRAMING,
    description: "contacts CSV upload: one file of at most 2 MiB"
  },
  {
    method: "POST",
    pattern: /^\/api\/v1\/contact-lists\/[^/]+\/contacts\/bulk$/,
    bytes: 2 * MAX_CSV_BYTES,
    description: "bulk contacts: the same 500 rows as JSON"
  },
  {
    method: "POST",
    pattern: /^\/api\/v1\/knowledge-bases\/[^/]+\/sources$/,
    bytes: Math.ceil(
      (UTF8_BYTES_PER_CHAR * Math.max(MAX_DOCUMENT_CHARS, MAX_FAQ_PAIRS * (MAX_FAQ_QUESTION + MAX_FAQ_ANSWER)) +
        64 * KiB) / MiB
    ) * MiB,
    description: "knowledge-base sources: a text of 1,000,000 characters or 500 FAQ pairs"
  },
  {
    method: "POST",
    pattern: /^\/api\/v1\/knowledge-bases\/[^/]+\/documents\/upload$/,
    bytes: MAX_UPLOAD_FILES * MAX_UPLOAD_BYTES + MULTIPART_FRAMING,
    description: "knowledge-base files: 10 files of at most 10 MiB"
  }
]

/** The largest body the gateway lets through to `path`. */
export const bodyLimitFor = (options: ProtectionOptions, method: string, path: string): number => {
  const route = LargeBodyRoutes.find((r) => r.method === method && r.pattern.test(path))
  return route === undefined ? options.maxBodyBytes : Math.min(route.bytes, options.maxUploadBytes)
}

/** The rest of a refused body may still be on its way: close the connection rather than read it. */
const closing = (request: HttpServerRequest.HttpServerRequest) => (response: HttpServerResponse.HttpServerResponse) =>
  hasBody(request.headers) ? HttpServerResponse.setHeader(response, "connection", "close") : response

// ---------------------------------------------------------------------------
// Who is asking
// ---------------------------------------------------------------------------

/**
 * The bucket a request is charged to. API keys are told apart by a hash (the key itself is not kept
 * in memory); a key whose checksum is wrong is refused without a bucket of its own. Everything else
 * (dashboard sessions, sign-up, login) is told apart by client address: a bearer token would do for
 * a session, but an unverified token is free to vary, so it would give a new bucket per request.
 */
export type Identity =
  | { readonly _tag: "ApiKey"; readonly hash: string; readonly address: string }
  | { readonly _tag: "BadApiKey"; readonly address: string }
  | { readonly _tag: "Address"; readonly address: string }

export const identify = (authorization: string | undefined, address: string): Identity => {
  const credential = parseAuthorization(authorization)
  if (credential._tag !== "ApiKey") return { _tag: "Address", address }
  if (!isWellFormedApiKey(credential.key)) return { _tag: "BadApiKey", address }
  return { _tag: "ApiKey", hash: crypto.createHash("sha256").update(credential.key).digest("base64url"), address }
}

/** An IPv6 client is its /64: one subscriber's allocation, which it could otherwise walk through. */
const ipv6Prefix64 = (address: string): string => {
  const [head = "", tail] = address.split("%")[0]!.split("::") as [string, string | undefined]
  const groupsOf = (part: string | undefined) =>
    part === undefined || part === "" ? [] : part.split(":").flatMap((g) => (g.includes(".") ? ["0", "0"] : [g]))
  const left = groupsOf(head)
  const right = groupsOf(tail)
  const groups = tail === undefined
    ? left
    : [...left, ...Array(Math.max(0, 8 - left.length - right.length)).fill("0"), ...right]
  return `${groups.slice(0, 4).map((g) => parseInt(g, 16).toString(16)).join(":")}::/64`
}

/** A bare address from a socket or an `X-Forwarded-For` entry (which may carry a port or brackets). */
export const normalizeAddress = (raw: string): string => {
  let address = raw.trim()
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(address)
  if (bracketed !== null) address = bracketed[1]!
  else if (/^\d+\.\d+\.\d+\.\d+:\d+$/.test(address)) address = address.slice(0, address.lastIndexOf(":"))
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)
  if (mapped !== null) return mapped[1]!
  return net.isIPv6(address) ? ipv6Prefix64(address.toLowerCase()) : address
}

/**
 * The client's address: the connection's, or with `hops` proxies in front (each appending the
 * address it was reached from to `X-Forwarded-For`), the entry `hops` places from the right. Entries
 * further left are the client's to write, so they are never trusted.
 */
export const clientAddress = (request: HttpServerRequest.HttpServerRequest, hops: number): string => {
  const remote = Option.getOrElse(request.remoteAddress, () => "unknown")
  if (hops === 0) return normalizeAddress(remote)
  const chain = [
    ...(request.headers["x-forwarded-for"] ?? "").split(",").map((a) => a.trim()).filter((a) => a !== ""),
    remote
  ]
  return normalizeAddress(chain[Math.max(0, chain.length - 1 - hops)]!)
}

// ---------------------------------------------------------------------------
// Rate limiting
// ---------------------------------------------------------------------------

export interface RateLimiter {
  /** Charges the request at `now` (ms); `undefined` when its kind is not limited. */
  readonly decide: (identity: Identity, now: number) => Verdict | undefined
  /** `decide` at the clock's time. */
  readonly admit: (identity: Identity) => Effect.Effect<Verdict | undefined>
  /** The service refused the key (401): forget it, so its next request is charged to its address again. */
  readonly refused: (identity: Identity) => void
  readonly size: () => { readonly apiKeys: number; readonly addresses: number }
}

/**
 * A key's bucket exists only once the key was presented and not refused. A request with a key that
 * has no bucket is first charged to its address: anyone can compute a valid checksum, so without
 * this a stream of made-up keys would each start with a full bucket. A working key pays that once.
 */
export const makeRateLimiter = (options: {
  readonly apiKeyRate: RateLimit | undefined
  readonly ipRate: RateLimit | undefined
  readonly maxBuckets?: number
}): RateLimiter => {
  const maxBuckets = options.maxBuckets ?? DEFAULT_MAX_BUCKETS
  const keys = options.apiKeyRate === undefined ? undefined : new TokenBuckets(options.apiKeyRate, maxBuckets)
  const addresses = options.ipRate === undefined ? undefined : new TokenBuckets(options.ipRate, maxBuckets)

  const decide = (identity: Identity, now: number): Verdict | undefined => {
    if (identity._tag !== "ApiKey") return addresses?.take(identity.address, now)
    if (keys === undefined) return undefined
    if (!keys.has(identity.hash) && addresses !== undefined) {
      const first = addresses.take(identity.address, now)
      if (!first.allowed) return first
    }
    return keys.take(identity.hash, now)
  }

  return {
    decide,
    admit: (identity) => Effect.map(Clock.currentTimeMillis, (now) => decide(identity, now)),
    refused: (identity) => {
      if (identity._tag === "ApiKey") keys?.delete(identity.hash)
    },
    size: () => ({ apiKeys: keys?.size ?? 0, addresses: addresses?.size ?? 0 })
  }
}

export const rateLimitHeaders = (verdict: Verdict): Record<string, string> => ({
  "ratelimit-limit": String(verdict.limit),
  "ratelimit-remaining": String(verdict.remaining),
  "ratelimit-reset": String(verdict.resetSeconds)
})

const tooManyRequests = (verdict: Verdict) =>
  errorResponse(
    429,
    "RATE_LIMITED",
    `Too many requests; retry after ${verdict.retryAfterSeconds} second${verdict.retryAfterSeconds === 1 ? "" : "s"}`,
    { retryAfterSeconds: verdict.retryAfterSeconds }
  ).pipe(
    Effect.map(
      HttpServerResponse.setHeaders({ ...rateLimitHeaders(verdict), "retry-after": String(verdict.retryAfterSeconds) })
    )
  )

const invalidApiKey = errorResponse(401, "INVALID_API_KEY", "Invalid API key")

/**
 * Not rate limited: probes, docs, and the carriers' and messaging platform's callbacks, which come
 * from a few shared addresses for every tenant and are authenticated by their signatures.
 */
const unlimited = (path: string): boolean =>
  path === "/healthz" ||
  path === "/readyz" ||
  path === OPENAPI_PATH ||
  path === DOCS_PATH ||
  path.startsWith(`${DOCS_PATH}/`) ||
  path.startsWith("/api/v1/telephony/") ||
  path.startsWith("/api/v1/chatapp/webhook/") ||
  /^\/api\/v1\/channels\/chatapp\/agents\/[^/]+\/webhook$/.test(path)

// ---------------------------------------------------------------------------
// CORS
// ---------------------------------------------------------------------------

export const CORS_ALLOWED_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"] as const
export const CORS_ALLOWED_HEADERS = ["authorization", "content-type", "idempotency-key", REQUEST_ID_HEADER] as const
export const CORS_EXPOSED_HEADERS = [
  REQUEST_ID_HEADER,
  "retry-after",
  "ratelimit-limit",
  "ratelimit-remaining",
  "ratelimit-reset"
] as const
/** Seconds a browser may reuse a preflight answer (Chromium caps it at two hours). */
export const CORS_MAX_AGE = 7200

const appendVary = (response: HttpServerResponse.HttpServerResponse, value: string) => {
  const current = response.headers["vary"]
  return current === undefined || current.trim() === ""
    ? HttpServerResponse.setHeader(response, "vary", value)
    : current.toLowerCase().split(",").some((v) => v.trim() === value.toLowerCase())
    ? response
    : HttpServerResponse.setHeader(response, "vary", `${current}, ${value}`)
}

const makeCors = (origins: ReadonlyArray<string> | "*") => {
  const any = origins === "*"
  const allowed = new Set(any ? [] : origins)
  /** The `Access-Control-Allow-Origin` value for this request's origin, if it is allowed. */
  const allowOrigin = (origin: string | undefined): string | undefined =>
    origin === undefined ? undefined : any ? "*" : allowed.has(origin) ? origin : undefined

  const isPreflight = (request: HttpServerRequest.HttpServerRequest) =>
    request.method === "OPTIONS" && request.headers["origin"] !== undefined &&
    request.headers["access-control-request-method"] !== undefined

  /** Answered here, never proxied; a refused origin gets no CORS headers, so the browser stops. */
  const preflight = (request: HttpServerRequest.HttpServerRequest) => {
    const origin = allowOrigin(request.headers["origin"])
    const response = HttpServerResponse.empty({
      status: 204,
      headers: origin === undefined ? {} : {
        "access-control-allow-origin": origin,
        "access-control-allow-methods": CORS_ALLOWED_METHODS.join(", "),
        "access-control-allow-headers": CORS_ALLOWED_HEADERS.join(", "),
        "access-control-max-age": String(CORS_MAX_AGE)
      }
    })
    return any ? response : appendVary(response, "Origin")
  }

  // On every answer, whoever made it (the proxy, the gateway's own errors, the request context's).
  const onResponse: HttpApp.PreResponseHandler = (request, response) => {
    const origin = allowOrigin(request.headers["origin"])
    const withOrigin = origin === undefined ? response : HttpServerResponse.setHeaders(response, {
      "access-control-allow-origin": origin,
      "access-control-expose-headers": CORS_EXPOSED_HEADERS.join(", ")
    })
    return Effect.succeed(any ? withOrigin : appendVary(withOrigin, "Origin"))
  }

  return { isPreflight, preflight, onResponse }
}

// ---------------------------------------------------------------------------
// The middleware
// ---------------------------------------------------------------------------

export interface Protection {
  readonly limiter: RateLimiter
  readonly middleware: <E, R>(app: HttpApp.Default<E, R>) => HttpApp.Default<E, R>
}

/** One gateway's protection: its buckets live as long as it does. */
export const makeProtection = (options: ProtectionOptions): Protection => {
  const limiter = makeRateLimiter(options)
  const cors = options.corsOrigins === undefined ? undefined : makeCors(options.corsOrigins)
  const limiting = options.apiKeyRate !== undefined || options.ipRate !== undefined

  /**
   * The checks, synchronous: what a request is refused for (a preflight is answered), with the
   * verdict of its bucket; `undefined` when it goes on to the app.
   */
  const check = (request: HttpServerRequest.HttpServerRequest, path: string, now: number):
    | { readonly _tag: "Answer"; readonly response: Effect.Effect<HttpServerResponse.HttpServerResponse> }
    | {
      readonly _tag: "Pass"
      readonly identity: Identity | undefined
      readonly verdict: Verdict | undefined
      readonly limit: number
    } =>
  {
    let identity: Identity | undefined = undefined
    let verdict: Verdict | undefined = undefined
    if (!unlimited(path) && !limiting) {
      // no bucket to charge: only a key's checksum is checked, and nothing is hashed
      const credential = parseAuthorization(request.headers["authorization"])
      if (credential._tag === "ApiKey" && !isWellFormedApiKey(credential.key)) {
        return { _tag: "Answer", response: Effect.map(invalidApiKey, closing(request)) }
      }
    } else if (!unlimited(path)) {
      identity = identify(request.headers["authorization"], clientAddress(request, options.trustedProxyHops))
      verdict = limiter.decide(identity, now)
      if (verdict !== undefined && !verdict.allowed) {
        return { _tag: "Answer", response: Effect.map(tooManyRequests(verdict), closing(request)) }
      }
      if (identity._tag === "BadApiKey") {
        return { _tag: "Answer", response: Effect.map(invalidApiKey, closing(request)) }
      }
    }
    const limit = bodyLimitFor(options, request.method, path)
    const declared = declaredLength(request.headers)
    if (declared !== undefined && declared > limit) return { _tag: "Answer", response: payloadTooLarge(limit) }
    return { _tag: "Pass", identity, verdict, limit }
  }

  const middleware = <E, R>(app: HttpApp.Default<E, R>): HttpApp.Default<E, R> => {
    const checked = (request: HttpServerRequest.HttpServerRequest, now: number): HttpApp.Default<E, R> => {
      const outcome = check(request, pathOf(request), now)
      if (outcome._tag === "Answer") return outcome.response
      const { identity, limit, verdict } = outcome
      // only the proxy's count of a body without a declared length reads the limit: nothing to provide otherwise
      const served = hasBody(request.headers) && declaredLength(request.headers) === undefined
        ? Effect.provideService(app, RequestBodyLimit, limit)
        : app
      return identity === undefined ? served : Effect.map(served, (response) => {
        if (response.status === 401) limiter.refused(identity)
        return verdict === undefined ? response : withHeaders(response, rateLimitHeaders(verdict))
      })
    }
    return Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
      if (cors !== undefined) {
        if (cors.isPreflight(request)) return Effect.succeed(cors.preflight(request))
        return Effect.zipRight(
          HttpApp.appendPreResponseHandler(cors.onResponse),
          Effect.flatMap(Clock.currentTimeMillis, (now) => checked(request, now))
        )
      }
      return Effect.flatMap(Clock.currentTimeMillis, (now) => checked(request, now))
    })
  }

  return { limiter, middleware }
}
