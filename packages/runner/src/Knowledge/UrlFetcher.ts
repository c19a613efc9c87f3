/**
 * Fetching a knowledge base's URL sources without letting a tenant reach the platform's own
 * network (server-side request forgery).
 *
 * - Only `http:` and `https:` URLs without user information (`user:pass@`).
 * - Every address the host resolves to must be public (globally routable unicast): loopback,
 *   private (RFC 1918), link-local (cloud metadata at 169.254.169.254), carrier-grade NAT,
 *   unique-local, multicast, broadcast, unspecified, documentation and other reserved ranges are
 *   refused. IPv4-mapped IPv6 addresses (`::ffff:127.0.0.1`) and NAT64 addresses (`64:ff9b::/96`)
 *   are judged by the IPv4 address inside. A host with one private address among public ones is
 *   refused too.
 * - The operator's allow-list (`KB_URL_ALLOWLIST`) lets through hostnames (exact, case-insensitive),
 *   addresses and CIDR ranges, e.g. an intranet wiki.
 * - `fetchUrl` checks addresses when it connects (the `lookup` hook of `node:http`), not before, so
 *   a DNS answer that changes between a check and the connection (DNS rebinding) cannot reach a
 *   private address; every redirect hop is checked again; the body is capped; each hop has a
 *   deadline.
 */
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import ipaddr from "ipaddr.js"
import * as dns from "node:dns"
import * as http from "node:http"
import * as https from "node:https"
import * as net from "node:net"
import * as zlib from "node:zlib"

export interface UrlPolicy {
  /**
   * Hosts or addresses allowed even when private or loopback: exact hostnames (case-insensitive),
   * IP addresses, or CIDR ranges (`"127.0.0.1"`, `"10.0.0.0/8"`, `"::1"`, `"intranet.example"`).
   */
  readonly allow: ReadonlyArray<string>
  /** The largest body accepted, after decompression; 5 MiB by default. */
  readonly maxBytes: number
  /** The deadline of each hop (connection, request and the whole body); 15 s by default. */
  readonly timeoutMillis: number
  /** Redirects followed; 5 by default. */
  readonly maxRedirects: number
}

export const defaultUrlPolicy: UrlPolicy = {
  allow: [],
  maxBytes: 5 * 1024 * 1024,
  timeoutMillis: 15_000,
  maxRedirects: 5
}

export const USER_AGENT = "voiceagent-kb-fetcher/1.0"
const ACCEPT = "text/html, text/plain, text/markdown, text/csv, application/pdf;q=0.9, */*;q=0.1"

/** The URL is not one the platform fetches; `message` is meant for the person who added it. */
export class UrlNotAllowed extends Data.TaggedError("UrlNotAllowed")<{
  readonly reason: "INVALID_URL" | "SCHEME" | "CREDENTIALS" | "PRIVATE_ADDRESS" | "UNRESOLVABLE"
  readonly message: string
}> {}

/** The URL is allowed but could not be fetched. */
export class UrlFetchFailed extends Data.TaggedError("UrlFetchFailed")<{
  readonly message: string
  /** The HTTP status when the server answered with one that is not 2xx (nor a redirect followed). */
  readonly status?: number | undefined
  /** Worth trying again later: timeouts, connection errors, temporary DNS failures, 408, 429 and 5xx. */
  readonly retryable: boolean
}> {}

// ---------------------------------------------------------------------------------------------
// Addresses
// ---------------------------------------------------------------------------------------------

type Address = ipaddr.IPv4 | ipaddr.IPv6
type Range = readonly [Address, number]

const NAT64 = ipaddr.parseCIDR("64:ff9b::/96")
const IPV4_COMPATIBLE = ipaddr.parseCIDR("::/96")

/** An IP address in its comparable form: IPv4-mapped IPv6 becomes IPv4; `undefined` if not an address. */
const parseAddress = (address: string): Address | undefined => {
  const bare = address.startsWith("[") && address.endsWith("]") ? address.slice(1, -1) : address
  if (net.isIP(bare) === 0) return undefined
  try {
    const parsed = ipaddr.parse(bare)
    return parsed.kind() === "ipv6" && (parsed as ipaddr.IPv6).isIPv4MappedAddress()
      ? (parsed as ipaddr.IPv6).toIPv4Address()
      : parsed
  } catch {
    return undefined
  }
}

const isPublic = (ip: Address): boolean => {
  if (ip.kind() === "ipv6") {
    const v6 = ip as ipaddr.IPv6
    if (v6.match(NAT64)) return isPublic(ipaddr.fromByteArray(v6.toByteArray().slice(12)))
    // deprecated IPv4-compatible addresses (::a.b.c.d), `::` and `::1` among them
    if (v6.match(IPV4_COMPATIBLE)) return false
  }
  return ip.range() === "unicast"
}

/**
 * Whether an IP address is globally routable: only ipaddr.js's `unicast` range counts, after an
 * IPv4-mapped (`::ffff:a.b.c.d`) or NAT64 (`64:ff9b::a.b.c.d`) address is reduced to its IPv4
 * address. `false` for anything that is not an IP address. `[::1]` brackets are accepted.
 */
export const isPublicAddress = (address: string): boolean => {
  const ip = parseAddress(address)
  return ip !== undefined && isPublic(ip)
}

// ---------------------------------------------------------------------------------------------
// Allow-list
// ---------------------------------------------------------------------------------------------

const HOSTNAME_LABEL = /^(?!-)[a-z0-9_-]{1,63}(?<!-)$/

const normalizeHostname = (hostname: string): string => hostname.toLowerCase().replace(/\.$/, "")

const isHostname = (value: string): boolean => {
  const labels = normalizeHostname(value).split(".")
  // URL parsing reads a host ending in a number as an IPv4 address ("10.1" is 10.0.0.1)
  return value.length <= 253 && labels.every((label) => HOSTNAME_LABEL.test(label)) &&
    !/^(?:0x[0-9a-f]*|\d+)$/.test(labels[labels.length - 1])
}

const parseRange = (entry: string): Range | undefined => {
  if (entry.includes("/")) {
    const [address, bits] = entry.split("/")
    if (net.isIP(address) === 0 || !/^\d{1,3}$/.test(bits)) return undefined
    try {
      const [network, prefix] = ipaddr.parseCIDR(entry)
      if (network.kind() === "ipv6" && (network as ipaddr.IPv6).isIPv4MappedAddress() && prefix >= 96) {
        return [(network as ipaddr.IPv6).toIPv4Address(), prefix - 96]
      }
      return [network, prefix]
    } catch {
      return undefined
    }
  }
  const ip = parseAddress(entry)
  return ip === undefined ? undefined : [ip, ip.kind() === "ipv4" ? 32 : 128]
}

/**
 * Parses an allow-list such as `"127.0.0.1, 10.0.0.0/8, ::1, intranet.example"`: entries separated
 * by commas or whitespace; each an IP address (IPv6 optionally in brackets), a CIDR range or an
 * exact hostname (no wildcards, schemes or ports). Hostnames are lower-cased. Empty → no entries.
 * Fails with a message naming the first invalid entry.
 */
export const parseAllowList = (value: string): Either.Either<ReadonlyArray<string>, string> => {
  const entries: Array<string> = []
  for (const entry of value.split(/[\s,]+/).filter((e) => e !== "")) {
    if (parseRange(entry) !== undefined) entries.push(entry.toLowerCase())
    else if (!entry.includes("/") && !entry.includes(":") && isHostname(entry)) entries.push(normalizeHostname(entry))
    else {
      return Either.left(
        `"${entry}" is not an IP address, a CIDR range (10.0.0.0/8) or a hostname (intranet.example); wildcards, ` +
          `schemes and ports are not supported`
      )
    }
  }
  return Either.right(entries)
}

interface Allowed {
  readonly hosts: ReadonlySet<string>
  readonly ranges: ReadonlyArray<Range>
}

const compileAllowList = (allow: ReadonlyArray<string>): Allowed => {
  const hosts = new Set<string>()
  const ranges: Array<Range> = []
  for (const entry of allow) {
    const range = parseRange(entry.trim())
    if (range !== undefined) ranges.push(range)
    else hosts.add(normalizeHostname(entry.trim()))
  }
  return { hosts, ranges }
}

const isAllowedAddress = (allowed: Allowed, ip: Address): boolean =>
  isPublic(ip) || allowed.ranges.some(([network, bits]) => network.kind() === ip.kind() && ip.match(network, bits))

const privateAddress = (host: string, address: string) =>
  new UrlNotAllowed({
    reason: "PRIVATE_ADDRESS",
    message: `${host} is a private, loopback or otherwise non-public address (${address}); ` +
      `the platform's operator can allow it with KB_URL_ALLOWLIST`
  })

// ---------------------------------------------------------------------------------------------
// Checking
// ---------------------------------------------------------------------------------------------

interface Target {
  readonly url: URL
  /** The host without IPv6 brackets. */
  readonly host: string
  /** Set when the host is an IP address (no DNS). */
  readonly address: Address | undefined
}

/** Everything about a URL that needs no DNS: syntax, scheme, credentials and a literal address. */
const checkStatically = (input: string | URL, allowed: Allowed): Either.Either<Target, UrlNotAllowed> => {
  let url: URL
  try {
    url = new URL(input)
  } catch {
    return Either.left(new UrlNotAllowed({ reason: "INVALID_URL", message: `${String(input)} is not a valid URL` }))
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return Either.left(
      new UrlNotAllowed({
        reason: "SCHEME",
        message: `Only http and https URLs can be fetched, not ${url.protocol.replace(/:$/, "")}`
      })
    )
  }
  if (url.username !== "" || url.password !== "") {
    return Either.left(
      new UrlNotAllowed({ reason: "CREDENTIALS", message: "URLs with a user name or password cannot be fetched" })
    )
  }
  const host = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname
  if (host === "") return Either.left(new UrlNotAllowed({ reason: "INVALID_URL", message: `${url.href} has no host` }))
  const address = parseAddress(host)
  if (address !== undefined && !isAllowedAddress(allowed, address)) return Either.left(privateAddress(host, host))
  return Either.right({ url, host, address })
}

const unresolvable = (host: string, detail: string) =>
  new UrlNotAllowed({ reason: "UNRESOLVABLE", message: `${host} could not be resolved (${detail})` })

/**
 * Resolves every address of `host` and checks each one; the addresses on success. `ENOTFOUND` and
 * `ENODATA` are `UNRESOLVABLE`; other DNS errors (a resolver timing out) are passed on as they are.
 */
const resolveChecked = (
  host: string,
  allowed: Allowed,
  family: number,
  callback: (error: NodeJS.ErrnoException | UrlNotAllowed | null, addresses: ReadonlyArray<dns.LookupAddress>) => void
): void => {
  dns.lookup(host, { all: true, family }, (error, addresses) => {
    if (error !== null) {
      return callback(
        error.code === "ENOTFOUND" || error.code === "ENODATA" ? unresolvable(host, error.code) : error,
        []
      )
    }
    if (addresses.length === 0) return callback(unresolvable(host, "no addresses"), [])
    if (!allowed.hosts.has(normalizeHostname(host))) {
      for (const { address } of addresses) {
        const ip = parseAddress(address)
        if (ip === undefined || !isAllowedAddress(allowed, ip)) return callback(privateAddress(host, address), [])
      }
    }
    callback(null, addresses)
  })
}

/**
 * Checks a URL when it is added, for fast feedback: syntax (`INVALID_URL`), http or https only
 * (`SCHEME`), no user name or password (`CREDENTIALS`), and every address the host resolves to is
 * public unless the allow-list names the host or the address (`PRIVATE_ADDRESS`); a host that does
 * not resolve, or not within the policy's timeout, is `UNRESOLVABLE`. IP literals need no DNS.
 * The parsed URL on success. `fetchUrl` checks again when it connects.
 */
export const checkUrl = (url: string, policy: UrlPolicy): Effect.Effect<URL, UrlNotAllowed> => {
  const allowed = compileAllowList(policy.allow)
  return Either.match(checkStatically(url, allowed), {
    onLeft: Effect.fail,
    onRight: (target) =>
      target.address !== undefined
        ? Effect.succeed(target.url)
        : Effect.async<URL, UrlNotAllowed>((resume) => {
          // getaddrinfo cannot be cancelled; a late answer is ignored
          let done = false
          const finish = (effect: Effect.Effect<URL, UrlNotAllowed>) => {
            if (done) return
            done = true
            clearTimeout(timer)
            resume(effect)
          }
          const timer = setTimeout(
            () => finish(Effect.fail(unresolvable(target.host, `no answer within ${policy.timeoutMillis} ms`))),
            policy.timeoutMillis
          )
          resolveChecked(target.host, allowed, 0, (error) => {
            if (error === null) finish(Effect.succeed(target.url))
            else if (error instanceof UrlNotAllowed) finish(Effect.fail(error))
            else finish(Effect.fail(unresolvable(target.host, error.code ?? error.message)))
          })
          return Effect.sync(() => {
            done = true
            clearTimeout(timer)
          })
        })
  })
}

// ---------------------------------------------------------------------------------------------
// Fetching
// ---------------------------------------------------------------------------------------------

export interface FetchedUrl {
  /** The URL of the last hop, after redirects. */
  readonly finalUrl: string
  readonly status: number
  /** The `Content-Type` header as sent, parameters included. */
  readonly contentType: string | undefined
  /** The body, decompressed. */
  readonly bytes: Uint8Array
}

type Hop =
  | { readonly _tag: "Redirect"; readonly location: string; readonly status: number }
  | { readonly _tag: "Done"; readonly fetched: FetchedUrl }

const REDIRECTS: ReadonlySet<number> = new Set([301, 302, 303, 307, 308])

const isRetryableStatus = (status: number) => status === 408 || status === 429 || status >= 500

const failed = (message: string, retryable: boolean, status?: number) =>
  new UrlFetchFailed({ message, retryable, status })

/** The `lookup` option of `node:http`: resolves, then refuses the connection unless every address passes. */
const guardedLookup = (allowed: Allowed): net.LookupFunction => (hostname, options, callback) => {
  resolveChecked(
    hostname,
    allowed,
    options.family === 4 || options.family === "IPv4" ? 4 : options.family === 6 || options.family === "IPv6" ? 6 : 0,
    (error, addresses) => {
      const cb = callback as (...args: Array<unknown>) => void
      if (error !== null) cb(error)
      else if (options.all === true) cb(null, addresses)
      else cb(null, addresses[0].address, addresses[0].family)
    }
  )
}

const connectionError = (url: URL, error: NodeJS.ErrnoException) =>
  error.code === "EAI_AGAIN"
    ? failed(`${url.host} could not be resolved just now (${error.code})`, true)
    : error.code === "CERT_HAS_EXPIRED" || error.code?.startsWith("ERR_TLS") ||
        /certificate|self[- ]signed/i.test(error.message)
    ? failed(`The TLS connection to ${url.host} failed: ${error.message}`, false)
    : failed(`The connection to ${url.host} failed: ${error.code ?? error.message}`, true)

const decoderOf = (
  encoding: string | undefined
): zlib.Gunzip | zlib.Inflate | zlib.BrotliDecompress | null | undefined => {
  switch ((encoding ?? "identity").trim().toLowerCase()) {
    case "":
    case "identity":
      return null
    case "gzip":
    case "x-gzip":
      return zlib.createGunzip()
    case "deflate":
      return zlib.createInflate()
    case "br":
      return zlib.createBrotliDecompress()
    default:
      return undefined
  }
}

/** One request and its response, on a fresh connection, within the policy's deadline. */
const exchange = (
  target: Target,
  policy: UrlPolicy,
  allowed: Allowed
): Effect.Effect<Hop, UrlNotAllowed | UrlFetchFailed> =>
  Effect.async<Hop, UrlNotAllowed | UrlFetchFailed>((resume) => {
    let done = false
    let decoder: zlib.Gunzip | zlib.Inflate | zlib.BrotliDecompress | null = null
    const finish = (effect: Effect.Effect<Hop, UrlNotAllowed | UrlFetchFailed>) => {
      if (done) return
      done = true
      clearTimeout(timer)
      request.destroy()
      decoder?.destroy()
      resume(effect)
    }
    const fail = (error: UrlNotAllowed | UrlFetchFailed) => finish(Effect.fail(error))

    const request = (target.url.protocol === "https:" ? https : http).request(target.url, {
      method: "GET",
      agent: false,
      lookup: guardedLookup(allowed),
      headers: { "user-agent": USER_AGENT, accept: ACCEPT, "accept-encoding": "gzip, deflate, br" }
    })
    const timer = setTimeout(
      () => fail(failed(`${target.url.href} did not answer within ${policy.timeoutMillis} ms`, true)),
      policy.timeoutMillis
    )

    request.on("error", (error: NodeJS.ErrnoException) =>
      fail(error instanceof UrlNotAllowed ? error : connectionError(target.url, error)))
    request.on("response", (response) => {
      const status = response.statusCode ?? 0
      const location = response.headers.location
      if (REDIRECTS.has(status) && location !== undefined) {
        return finish(Effect.succeed({ _tag: "Redirect", location, status }))
      }
      if (status < 200 || status > 299) {
        return fail(
          failed(
            `${target.url.href} answered ${status} ${response.statusMessage ?? ""}`.trim(),
            isRetryableStatus(status),
            status
          )
        )
      }
      const tooLarge = () =>
        failed(`${target.url.href} is too large (more than ${policy.maxBytes} bytes)`, false)
      const declared = Number(response.headers["content-length"])
      if (Number.isFinite(declared) && declared > policy.maxBytes) return fail(tooLarge())
      const chosen = decoderOf(response.headers["content-encoding"])
      if (chosen === undefined) {
        return fail(
          failed(
            `${target.url.href} uses an unsupported content encoding (${response.headers["content-encoding"]})`,
            false
          )
        )
      }
      decoder = chosen
      const body = decoder === null ? response : response.pipe(decoder)
      const chunks: Array<Buffer> = []
      let size = 0
      body.on("data", (chunk: Buffer) => {
        size += chunk.length
        if (size > policy.maxBytes) fail(tooLarge())
        else chunks.push(chunk)
      })
      body.on("end", () =>
        finish(Effect.succeed({
          _tag: "Done",
          fetched: {
            finalUrl: target.url.href,
            status,
            contentType: response.headers["content-type"],
            bytes: new Uint8Array(Buffer.concat(chunks))
          }
        })))
      response.on("error", (error: NodeJS.ErrnoException) => fail(connectionError(target.url, error)))
      response.on("close", () => {
        if (!response.complete) {
          fail(failed(`The connection to ${target.url.host} closed before the whole body arrived`, true))
        }
      })
      decoder?.on("error", (error) =>
        fail(failed(`${target.url.href} sent a body that cannot be decompressed: ${error.message}`, false)))
    })
    request.end()

    return Effect.sync(() => {
      done = true
      clearTimeout(timer)
      request.destroy()
      decoder?.destroy()
    })
  })

/**
 * Fetches a URL source with `GET`. Each hop is checked like `checkUrl` (scheme, credentials, a
 * literal address), and a hostname's addresses are checked at connection time through the
 * `lookup` hook, so DNS rebinding between a check and the connection cannot reach a private
 * address. Redirects (301, 302, 303, 307, 308) are followed by hand up to `maxRedirects`, each one
 * checked again. Each hop's whole exchange has `timeoutMillis` (a real-time deadline, independent
 * of the Effect clock since it bounds real I/O). The body, decompressed (gzip, deflate, br), is
 * capped at `maxBytes`: beyond, the connection is dropped and the fetch fails, not retryable.
 * Non-2xx answers fail with their `status`: 408, 429 and 5xx retryable, others not; connection
 * errors and timeouts are retryable. Interrupting the fiber destroys the request.
 */
export const fetchUrl = (url: string, policy: UrlPolicy): Effect.Effect<FetchedUrl, UrlNotAllowed | UrlFetchFailed> => {
  const allowed = compileAllowList(policy.allow)
  const hop = (input: string | URL, redirects: number): Effect.Effect<FetchedUrl, UrlNotAllowed | UrlFetchFailed> =>
    Either.match(checkStatically(input, allowed), {
      onLeft: Effect.fail,
      onRight: (target) =>
        Effect.flatMap(exchange(target, policy, allowed), (result) => {
          if (result._tag === "Done") return Effect.succeed(result.fetched)
          if (redirects >= policy.maxRedirects) {
            return Effect.fail(
              failed(`Too many redirects (more than ${policy.maxRedirects}), last from ${target.url.href}`, false)
            )
          }
          let next: URL
          try {
            next = new URL(result.location, target.url)
          } catch {
            return Effect.fail(failed(`${target.url.href} redirects to an invalid URL: ${result.location}`, false))
          }
          return hop(next, redirects + 1)
        })
    })
  return hop(url, 0)
}
