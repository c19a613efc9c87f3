/**
 * What `Fuzz.test.ts` sends: every endpoint of `PlatformApi` with its service, body kind and
 * credential, and generators of hostile requests for it. Bodies start from the route's own schema
 * (`Arbitrary.make` of its encoded side; `jsonValue` where that cannot be generated) or from a valid
 * body with the fixtures' ids, and are then made hostile: one value replaced (control characters,
 * lone surrogates, huge strings, overflowing numbers, wrong types, deep nesting, huge arrays), keys
 * duplicated or added, the whole body replaced by something that is not JSON, the wrong media type,
 * a chunked transfer. Path parameters, query strings and credentials get the same treatment.
 *
 * The generators are effect's `FastCheck` (the fast-check its `Arbitrary` builds on): arbitraries of
 * two fast-check versions do not mix.
 */
import * as HttpApi from "@effect/platform/HttpApi"
import { SessionAuthentication, SessionTenantAuthentication } from "@voiceagent/domain/Auth"
import { ScheduleCampaignRequest } from "@voiceagent/domain/Campaigns"
import { PlatformApi, routeFor, type ServiceName } from "@voiceagent/domain/Gateway"
import { nestsDeeperThan } from "@voiceagent/domain/Json"
import { type BodyKind, routesOf } from "@voiceagent/http/Routes"
import { signWebhookBody } from "@voiceagent/runner/Messaging/WhatsAppCloud"
import { signWebhook as signTelnyxWebhook } from "@voiceagent/runner/Telephony/TelnyxWebhooks"
import { computeSignature } from "@voiceagent/runner/Telephony/TwilioCarrier"
import { Arbitrary, Either, FastCheck as fc, Option, Schema, SchemaAST as AST } from "effect"
import type * as crypto from "node:crypto"

// ---------------------------------------------------------------------------------------------
// The endpoints
// ---------------------------------------------------------------------------------------------

export type Credential = "key" | "session" | "none"

export interface Endpoint {
  /** `METHOD /api/v1/path/:param` */
  readonly name: string
  readonly method: string
  readonly path: string
  readonly params: ReadonlyArray<string>
  readonly body: BodyKind
  readonly service: ServiceName
  /** The schema of the body, when the endpoint declares one (or reads one itself, as schedule does). */
  readonly payload: Schema.Schema.Any | undefined
  readonly urlParams: Schema.Schema.Any | undefined
  /** What the route wants: an API key, a dashboard session only, or no credential at all. */
  readonly credential: Credential
}

/** Routes that read a body without declaring it as their payload. */
const undeclaredPayloads: Record<string, Schema.Schema.Any> = {
  "POST /api/v1/campaigns/:id/schedule": ScheduleCampaignRequest
}

export const endpoints: ReadonlyArray<Endpoint> = (() => {
  const kinds = new Map(routesOf(PlatformApi).map((r) => [`${r.method} ${r.path}`, r.body]))
  const found: Array<Endpoint> = []
  HttpApi.reflect(PlatformApi as unknown as HttpApi.HttpApi.AnyWithProps, {
    onGroup: () => {},
    onEndpoint: ({ endpoint, middleware }) => {
      const route = routeFor(endpoint.path)
      if (route === undefined) return // /healthz and /readyz: the gateway's own
      const name = `${endpoint.method} ${endpoint.path}`
      const session = middleware.has(SessionAuthentication as any) || middleware.has(SessionTenantAuthentication as any)
      found.push({
        name,
        method: endpoint.method,
        path: endpoint.path,
        params: endpoint.path.split("/").filter((s) => s.startsWith(":")).map((s) => s.slice(1)),
        body: kinds.get(name) ?? "json",
        service: route.service,
        payload: Option.getOrUndefined(endpoint.payloadSchema as unknown as Option.Option<Schema.Schema.Any>) ??
          undeclaredPayloads[name],
        urlParams: Option.getOrUndefined(endpoint.urlParamsSchema as unknown as Option.Option<Schema.Schema.Any>),
        credential: session ? "session" : middleware.size === 0 ? "none" : "key"
      })
    }
  })
  return found
})()

// ---------------------------------------------------------------------------------------------
// Fixtures the requests refer to
// ---------------------------------------------------------------------------------------------

export interface Fixtures {
  readonly key: string
  readonly session: string
  readonly email: string
  readonly password: string
  readonly tenantId: string
  /** A second key of the tenant, the one `DELETE /api-keys/:id` may revoke. */
  readonly spareKeyId: string
  readonly personaId: string
  readonly agentId: string
  readonly voiceNumberId: string
  readonly listId: string
  readonly contactId: string
  readonly campaignId: string
  readonly kbId: string
  readonly documentId: string
  readonly jobId: string
  readonly sessionId: string
  readonly chatCampaignId: string
  readonly smsCampaignId: string
  readonly dncPhone: string
  readonly twilioAuthToken: string
  /** Signs Telnyx webhooks as Telnyx would (the platform has its public half). */
  readonly telnyxPrivateKey: crypto.KeyObject
  readonly chatAppSecret: string
  readonly publicUrl: string
}

/** The fixture a path parameter of `path` names. */
export const fixtureFor = (fixtures: Fixtures, path: string, param: string): string => {
  switch (param) {
    case "kbId":
      return fixtures.kbId
    case "documentId":
      return fixtures.documentId
    case "jobId":
      return fixtures.jobId
    case "listId":
      return fixtures.listId
    case "contactId":
      return fixtures.contactId
    case "sessionId":
      return fixtures.sessionId
    case "agentId":
      return fixtures.agentId
    case "tenantId":
      return fixtures.tenantId
    case "phoneNumber":
      return fixtures.dncPhone
  }
  if (path.startsWith("/api/v1/api-keys/")) return fixtures.spareKeyId
  if (path.startsWith("/api/v1/agents/")) return fixtures.agentId
  if (path.startsWith("/api/v1/voice-numbers/")) return fixtures.voiceNumberId
  if (path.startsWith("/api/v1/contact-lists/")) return fixtures.listId
  if (path.startsWith("/api/v1/campaigns/")) return fixtures.campaignId
  if (path.startsWith("/api/v1/chatapp/campaigns/")) return fixtures.chatCampaignId
  if (path.startsWith("/api/v1/sms-agent/campaigns/")) return fixtures.smsCampaignId
  throw new Error(`no fixture for ${param} in ${path}`)
}

let unique = 0
const next = () => `${Date.now().toString(36)}${(++unique).toString(36)}`

/** A phone number the simulated carrier refuses at once (…9004): a call to it ends as soon as it starts. */
export const refusedNumber = (i: number) => `+1415${200 + (i % 800)}9004`

/** A WhatsApp Cloud API shaped notification for the chat-app webhook. */
export const chatAppNotification = () => ({
  object: "whatsapp_business_account",
  entry: [{
    id: "102290129340398",
    changes: [{
      field: "messages",
      value: {
        messaging_product: "whatsapp",
        metadata: { display_phone_number: "15550783881", phone_number_id: "106540352242922" },
        statuses: [{ id: `wamid.${next()}`, status: "delivered", timestamp: "1700000000", recipient_id: "14155550101" }]
      }
    }]
  }]
})

/**
 * A body each route takes as it is (with the fixtures' ids and unique names), so that a single
 * hostile value in it reaches the handler's own code rather than the first schema check.
 */
export const validBody = (endpoint: Endpoint, f: Fixtures): unknown => {
  const n = next()
  switch (`${endpoint.method} ${endpoint.path.replace("/api/v1", "")}`) {
    case "POST /auth/signup":
      return { email: `fuzz-${n}@example.com`, password: "correct horse battery", companyName: `Fuzz ${n}` }
    case "POST /auth/login":
      return { email: f.email, password: f.password }
    case "POST /tenants":
      return { companyName: `Fuzz ${n}` }
    case "PATCH /tenant":
      return { name: `Fuzz tenant ${n}` }
    case "POST /api-keys":
      return { name: `fuzz key ${n}`, expiresAt: "2099-01-01T00:00:00.000Z" }
    case "POST /wallet/top-ups":
      return { amount: 100, idempotencyKey: `fuzz-${n}` }
    case "POST /agents":
      return { name: `Fuzz agent ${n}`, agent_persona_id: f.personaId, metadata: { team: "fuzz" } }
    case "PATCH /agents/:id":
      return {
        name: `Fuzz agent ${n}`,
        greetMessage: "Hello!",
        agent_prompt: "Be brief.",
        metadata: { fallback_message: "Sorry" }
      }
    case "POST /voice-numbers":
      return { phoneNumber: `+1415555${String(unique % 10_000).padStart(4, "0")}`, provider: "PROVIDER_A" }
    case "POST /channels/voice/call":
      return {
        agentId: f.agentId,
        voiceNumberId: f.voiceNumberId,
        toNumber: refusedNumber(unique),
        metadata: { fuzz: true }
      }
    case "POST /channels/web/call":
      return { agentId: f.agentId, metadata: { fuzz: true } }
    case "POST /knowledge-bases":
      return { kbKey: `fuzz-${n}`, kbName: "Fuzz KB", description: "d", metadata: { a: 1 } }
    case "PATCH /knowledge-bases/:kbId":
      return { kbName: `Fuzz KB ${n}`, description: "renamed" }
    case "POST /knowledge-bases/:kbId/sources":
      return { type: "TEXT", title: "Opening hours", text: "We are open from nine to six." }
    case "POST /knowledge-bases/:kbId/query":
      return { query: "When are you open?", topK: 3 }
    case "POST /telephony/twilio/status/:sessionId":
      return {
        CallSid: "CA00000000000000000000000000000000",
        CallStatus: "ringing",
        Timestamp: "Tue, 21 Nov 2026 10:00:00 +0000"
      }
    case "POST /telephony/twilio/amd/:sessionId":
      return {
        CallSid: "CA00000000000000000000000000000000",
        AnsweredBy: "machine_end_beep",
        MachineDetectionDuration: "3000"
      }
    // an incoming call to a number no agent answers: rejected, nothing written
    case "POST /telephony/twilio/voice":
      return {
        CallSid: "CA00000000000000000000000000000000",
        AccountSid: "AC0",
        From: "+14155550123",
        To: "+14155559999",
        Direction: "inbound",
        CallStatus: "ringing"
      }
    case "POST /telephony/twilio/voice/status":
      return {
        CallSid: "CA00000000000000000000000000000000",
        CallStatus: "completed",
        Timestamp: "Tue, 21 Nov 2026 10:00:00 +0000"
      }
    case "POST /telephony/telnyx/webhook":
      return {
        data: {
          record_type: "event",
          event_type: "call.initiated",
          id: `fuzz-${n}`,
          occurred_at: "2026-11-21T10:00:00.000000Z",
          payload: {
            call_control_id: "v3:fuzz-in",
            connection_id: "1494404757140276705",
            from: "+14155550123",
            to: "+14155559999",
            direction: "incoming",
            state: "parked"
          }
        },
        meta: { attempt: 1 }
      }
    case "POST /telephony/telnyx/webhook/:sessionId":
      return {
        data: {
          record_type: "event",
          event_type: "call.answered",
          id: `fuzz-${n}`,
          occurred_at: "2026-11-21T10:00:00.000000Z",
          payload: {
            call_control_id: "v3:fuzz",
            connection_id: "1494404757140276705",
            from: "+14155550199",
            to: "+14155550100",
            state: "answered"
          }
        },
        meta: { attempt: 1 }
      }
    case "POST /contact-lists":
      return { name: `Fuzz list ${n}`, metadata: { defaultCountry: "US" } }
    case "PATCH /contact-lists/:id":
      return { name: `Fuzz list ${n}`, metadata: { note: "x" } }
    case "POST /contact-lists/:listId/contacts":
      return { phoneNumber: refusedNumber(unique), name: "Ada", email: "ada@example.com", metadata: { plan: "gold" } }
    case "POST /contact-lists/:listId/contacts/bulk":
      return {
        contacts: [{ phoneNumber: refusedNumber(unique), name: "Grace" }, { phoneNumber: refusedNumber(unique + 1) }]
      }
    case "PATCH /contact-lists/:listId/contacts/:contactId":
      return { name: "Ada Lovelace", email: "ada@example.com", metadata: { plan: "silver" } }
    case "POST /campaigns":
      return { name: `Fuzz campaign ${n}`, agentId: f.agentId, voiceNumberId: f.voiceNumberId, contactListId: f.listId }
    case "PATCH /campaigns/:id":
      return { description: "fuzzed", maxAttempts: 2, callDays: [1, 2, 3] }
    case "POST /campaigns/:id/schedule":
      return { scheduledAt: "2099-01-01T00:00:00.000Z" }
    case "POST /dnc":
      return { phoneNumber: "+14155550111", reason: "asked" }
    case "POST /chatapp/campaigns":
      return {
        agentId: f.agentId,
        templates: [{ templateName: "call_followup", process: "OUTGOING", callStatus: "ANSWERED" }]
      }
    case "PUT /chatapp/campaigns/:id":
      return { name: `Fuzz chat ${n}`, isActive: true }
    case "POST /chatapp/agents/:agentId/attach-number":
      return { phoneNumberId: "106540352242922" }
    case "POST /chatapp/webhook/:tenantId":
      return chatAppNotification()
    case "POST /sms-agent/campaigns":
      return { agentId: f.agentId, templates: [{ callStatus: "ANSWERED", messageBody: "Thanks {{name}}" }] }
    case "PUT /sms-agent/campaigns/:id":
      return { name: `Fuzz sms ${n}`, isActive: true }
  }
  return endpoint.payload === undefined ? {} : undefined
}

// ---------------------------------------------------------------------------------------------
// Hostile values
// ---------------------------------------------------------------------------------------------

/** A value to put somewhere in a body: a JSON value, or JSON text spliced in as it is. */
export type Hostile =
  | { readonly label: string; readonly value: unknown }
  | { readonly label: string; readonly raw: string }

const value = (label: string, v: unknown): Hostile => ({ label, value: v })
const raw = (label: string, text: string): Hostile => ({ label, raw: text })

const nestedText = (depth: number, open: string, close: string, bottom = "1") =>
  open.repeat(depth) + bottom + close.repeat(depth)

export const hostileValues: ReadonlyArray<Hostile> = [
  // strings
  value("NUL", "\u0000"),
  value("NUL inside", "ab\u0000cd"),
  value("control characters", "\u0001\u0007\u0008\u000b\u001b\u007f\u0085"),
  value("lone high surrogate", "\ud800"),
  value("lone low surrogate", "\udfff"),
  value("surrogate inside", "ab\ud800cd"),
  value("RTL override", "\u202eevil\u202c.txt"),
  value("100 KB string", "x".repeat(100_000)),
  value("100 KB of emoji", "📞".repeat(25_000)),
  value("empty string", ""),
  value("blank string", "   "),
  value("BOM", "\ufeff"),
  value("SQL", "' OR 1=1; DROP TABLE agents; --"),
  value("template", "{{constructor.constructor('return process')()}}"),
  value("percent NUL", "%00"),
  // strings that parse as something, at its edges
  value("last representable date", "+275760-09-13T00:00:00.000Z"),
  value("past the last date", "+275760-09-13T00:00:00.001Z"),
  value("year 0", "0000-01-01T00:00:00.000Z"),
  value("negative year", "-000001-01-01T00:00:00.000Z"),
  value("past year 9999 in UTC", "9999-12-31T23:59:59.999-14:00"),
  value("before year 1 in UTC", "0001-01-01T00:00:00+14:00"),
  value("February 30", "2026-02-30T10:00:00.000Z"),
  value("date without zone", "2026-11-24T10:00:00"),
  value("24:00", "24:00"),
  value("23:60", "23:60"),
  value("odd timezone", "Etc/GMT-14"),
  value("unknown timezone", "Mars/Olympus_Mons"),
  value("nil UUID", "00000000-0000-0000-0000-000000000000"),
  value("max UUID", "ffffffff-ffff-ffff-ffff-ffffffffffff"),
  value("16-digit phone", "+9999999999999999"),
  value("short phone", "+1"),
  value("metadata address", "http://169.254.169.254/latest/meta-data/"),
  value("loopback URL", "http://[::1]:22/"),
  value("hex IP URL", "http://0x7f000001/"),
  value("file URL", "file:///etc/passwd"),
  value("script URL", "javascript:alert(1)"),
  value("email with NUL-free oddities", "\"a b\"@[127.0.0.1]"),
  value("language tag", "zz_ZZ"),
  value("template braces", "{{{{name}}}}"),
  // numbers
  raw("1e400", "1e400"),
  raw("-1e400", "-1e400"),
  raw("1e-400", "1e-400"),
  raw("2^53+1", "9007199254740993"),
  raw("huge integer", "123456789012345678901234567890"),
  raw("-0", "-0"),
  value("-1", -1),
  value("0", 0),
  value("1e308", 1e308),
  value("2^31", 2_147_483_648),
  value("-2^31-1", -2_147_483_649),
  value("2^63", 9_223_372_036_854_775_808),
  value("fraction", 0.5),
  // wrong types
  value("string", "string"),
  value("number", 42),
  value("true", true),
  value("false", false),
  value("null", null),
  value("empty array", []),
  value("empty object", {}),
  value("array", ["a", 1, null]),
  value("object", { a: { b: "c" } }),
  // nesting and size
  raw("40 levels of arrays", nestedText(40, "[", "]")),
  raw("40 levels of objects", nestedText(40, "{\"a\":", "}")),
  raw("5000 levels of arrays", nestedText(5_000, "[", "]")),
  raw("10,000 numbers", `[${Array.from({ length: 10_000 }, (_, i) => i).join(",")}]`),
  value("10,000 strings", Array.from({ length: 10_000 }, () => "x")),
  raw("10,000 objects", `[${Array(10_000).fill("{}").join(",")}]`)
]

const NUMBER_LABELS = [
  "1e400",
  "-1e400",
  "1e-400",
  "2^53+1",
  "huge integer",
  "-0",
  "-1",
  "0",
  "1e308",
  "2^31",
  "-2^31-1",
  "2^63",
  "fraction"
]
const SIZE_LABELS = [
  "10,000 numbers",
  "10,000 strings",
  "10,000 objects",
  "40 levels of arrays",
  "40 levels of objects",
  "5000 levels of arrays"
]

const DATE_LIKE = /^[+-]?\d{4,6}-\d{2}-\d{2}T/
const UUID_LIKE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const PHONE_LIKE = /^\+\d{6,}$/
const TIME_LIKE = /^\d{2}:\d{2}$/

/** Values at the edges of what a string of that shape means. */
const semanticKin = (s: string): ReadonlyArray<Hostile> | undefined => {
  const labelled = (values: ReadonlyArray<readonly [string, string]>) => values.map(([label, v]) => value(label, v))
  if (DATE_LIKE.test(s)) {
    return labelled([
      ["year 0", "0000-01-01T00:00:00.000Z"],
      ["past year 9999 in UTC", "9999-12-31T23:59:59.999-14:00"],
      ["before year 1 in UTC", "0001-01-01T00:00:00+14:00"],
      ["year 1", "0001-01-01T00:00:00.000Z"],
      ["year 9999", "9999-12-31T23:59:59.999Z"],
      ["February 30", "2026-02-30T10:00:00.000Z"],
      ["second 60", "2026-06-30T23:59:60Z"],
      ["offset +99:99", "2026-01-01T00:00+99:99"],
      ["nanoseconds", "2026-01-01T00:00:00.123456789Z"],
      ["six-digit year", "+275760-09-13T00:00:00.000Z"],
      ["without zone", "2026-11-24T10:00:00"],
      ["epoch", "1970-01-01T00:00:00Z"]
    ])
  }
  if (UUID_LIKE.test(s)) {
    return labelled([
      ["nil UUID", "00000000-0000-0000-0000-000000000000"],
      ["max UUID", "ffffffff-ffff-ffff-ffff-ffffffffffff"],
      ["uppercase UUID", s.toUpperCase()],
      ["UUID without dashes", s.replaceAll("-", "")],
      ["UUID in braces", `{${s}}`],
      ["UUID and a space", `${s} `],
      ["UUID v1", "c232ab00-9414-11ec-b3c8-9f6bdeced846"]
    ])
  }
  if (PHONE_LIKE.test(s)) {
    return labelled([
      ["16-digit phone", "+9999999999999999"],
      ["15-digit phone", "+999999999999999"],
      ["short phone", "+1"],
      ["phone without plus", s.slice(1)],
      ["phone with extension", `${s};ext=1`],
      ["phone with spaces", `${s.slice(0, 3)} ${s.slice(3)}`],
      ["zero country code", "+0123456789"],
      ["fullwidth digits", "＋１４１５５５５２６７１"]
    ])
  }
  if (TIME_LIKE.test(s)) {
    return labelled([
      ["24:00", "24:00"],
      ["23:60", "23:60"],
      ["00:00", "00:00"],
      ["23:59", "23:59"],
      ["-1:00", "-1:00"],
      ["9:00", "9:00"]
    ])
  }
  return undefined
}

/** The hostile values of the same kind as `v`. */
const hostileKin = (v: unknown): ReadonlyArray<Hostile> =>
  typeof v === "number"
    ? hostileValues.filter((h) => NUMBER_LABELS.includes(h.label))
    : typeof v === "string"
    ? semanticKin(v) ?? hostileValues.slice(0, hostileValues.findIndex((h) => h.label === "1e400"))
    : typeof v === "object" && v !== null
    ? hostileValues.filter((h) =>
      SIZE_LABELS.includes(h.label) || h.label === "empty array" || h.label === "empty object"
    )
    : []

/** Whole bodies that are not the JSON they claim to be, as bytes. */
export const notJson: ReadonlyArray<{ readonly label: string; readonly bytes: Uint8Array }> = [
  ["empty", ""],
  ["lone brace", "{"],
  ["text", "not json at all"],
  ["trailing garbage", "{\"a\":1}garbage"],
  ["two documents", "{\"a\":1}{\"b\":2}"],
  ["trailing comma", "{\"a\":1,}"],
  ["single quotes", "{'a':1}"],
  ["comment", "{/* c */\"a\":1}"],
  ["NaN", "{\"a\":NaN}"],
  ["Infinity", "{\"a\":Infinity}"],
  ["null", "null"],
  ["number", "0"],
  ["string", "\"s\""],
  ["array", "[]"],
  ["raw NUL", "{\"a\":\"\u0000\"}"],
  ["raw control characters", "{\"a\":\"\u0001\u001f\"}"],
  ["XML", "<?xml version=\"1.0\"?><a>1</a>"],
  ["form", "a=1&b=2"]
].map(([label, text]) => ({ label: label!, bytes: new TextEncoder().encode(text) })).concat([
  {
    label: "invalid UTF-8",
    bytes: Uint8Array.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0xc0, 0x22, 0x7d])
  },
  { label: "overlong UTF-8 NUL", bytes: Uint8Array.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc0, 0x80, 0x22, 0x7d]) },
  {
    label: "CESU surrogate",
    bytes: Uint8Array.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xed, 0xa0, 0x80, 0x22, 0x7d])
  },
  { label: "UTF-16 JSON", bytes: Uint8Array.from(Buffer.from("\ufeff{\"a\":1}", "utf16le")) },
  { label: "UTF-8 BOM", bytes: new TextEncoder().encode("\ufeff{}") }
])

// ---------------------------------------------------------------------------------------------
// Splicing hostile values into a body
// ---------------------------------------------------------------------------------------------

type Path = ReadonlyArray<string | number>

/** Every place in `v` a value can be put: the root, each member, each element. */
const pathsOf = (v: unknown, path: Path = [], out: Array<Path> = []): Array<Path> => {
  out.push(path)
  if (out.length > 200) return out
  if (Array.isArray(v)) v.slice(0, 5).forEach((item, i) => pathsOf(item, [...path, i], out))
  else if (typeof v === "object" && v !== null) {
    for (const [k, item] of Object.entries(v)) pathsOf(item, [...path, k], out)
  }
  return out
}

const at = (v: unknown, path: Path): unknown => path.reduce<any>((o, k) => (o == null ? undefined : o[k]), v)

const MARK = "\u0001fuzz-mark\u0001"

/** `v` with the value at `path` replaced by `replacement`'s JSON text. */
const spliceAt = (v: unknown, path: Path, replacement: string): string => {
  if (path.length === 0) return replacement
  const copy = structuredClone(v)
  const parent = at(copy, path.slice(0, -1)) as Record<string | number, unknown>
  parent[path[path.length - 1]!] = MARK
  return JSON.stringify(copy).replace(JSON.stringify(MARK), () => replacement)
}

const textOf = (h: Hostile) => ("raw" in h ? h.raw : JSON.stringify(h.value))

export type Mutation =
  | { readonly _tag: "Replace"; readonly pick: number; readonly hostile: Hostile; readonly alike: number | undefined }
  | { readonly _tag: "AddKey"; readonly pick: number; readonly key: string; readonly hostile: Hostile }
  | { readonly _tag: "DuplicateKey"; readonly pick: number; readonly hostile: Hostile }

const objectPaths = (v: unknown) =>
  pathsOf(v).filter((p) => {
    const o = at(v, p)
    return typeof o === "object" && o !== null && !Array.isArray(o)
  })

/** The body's JSON text with `mutation` applied, and a label saying what was done where. */
export const mutate = (base: unknown, mutation: Mutation): { readonly text: string; readonly label: string } => {
  const where = (p: Path) => (p.length === 0 ? "body" : p.join("."))
  switch (mutation._tag) {
    case "Replace": {
      const paths = pathsOf(base)
      const path = paths[mutation.pick % paths.length]!
      // often a hostile value of the same kind as the one replaced: an overflowing number where a
      // number goes, a hostile string where a string goes, more elements where an array goes
      const kin = mutation.alike === undefined ? [] : hostileKin(at(base, path))
      const hostile = kin.length === 0 ? mutation.hostile : kin[mutation.alike! % kin.length]!
      return { text: spliceAt(base, path, textOf(hostile)), label: `${where(path)} := ${hostile.label}` }
    }
    case "AddKey":
    case "DuplicateKey": {
      const paths = objectPaths(base)
      if (paths.length === 0) {
        return mutate(base, { _tag: "Replace", pick: mutation.pick, hostile: mutation.hostile, alike: undefined })
      }
      const path = paths[mutation.pick % paths.length]!
      const object = at(base, path) as Record<string, unknown>
      const keys = Object.keys(object)
      const key = mutation._tag === "AddKey" || keys.length === 0
        ? (mutation._tag === "AddKey" ? mutation.key : "duplicate")
        : keys[mutation.pick % keys.length]!
      const inner = JSON.stringify(object)
      // the key written twice (or a new one): `{"a":1,"a":<hostile>}`
      const member = `${JSON.stringify(key)}:${textOf(mutation.hostile)}`
      const text = inner === "{}" ? `{${member}}` : `${inner.slice(0, -1)},${member}}`
      return {
        text: spliceAt(base, path, text),
        label: `${mutation._tag === "AddKey" ? "extra key" : "duplicate key"} ${
          where([...path, key])
        } = ${mutation.hostile.label}`
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Requests
// ---------------------------------------------------------------------------------------------

/** One request, independent of where it is sent (the target's origin is prepended). */
export interface WireRequest {
  readonly endpoint: Endpoint
  readonly method: string
  /** Path and query string, percent-encoded as sent. */
  readonly target: string
  readonly headers: Record<string, string | ReadonlyArray<string>>
  readonly body: Uint8Array | undefined
  /** Sent with `Transfer-Encoding: chunked` (in a few pieces) rather than a `Content-Length`. */
  readonly chunked: boolean
  /** What was made hostile, for failure messages and the figures. */
  readonly label: string
}

const encoder = new TextEncoder()

const weighted = <A>(...entries: ReadonlyArray<readonly [number, fc.Arbitrary<A>]>) =>
  fc.oneof(...entries.map(([weight, arbitrary]) => ({ weight, arbitrary })))

export const hostileArb = fc.constantFrom(...hostileValues)

const mutationArb: fc.Arbitrary<Mutation> = weighted<Mutation>(
  [
    6,
    fc.record({
      _tag: fc.constant("Replace" as const),
      pick: fc.nat(),
      hostile: hostileArb,
      alike: fc.option(fc.nat(), { nil: undefined, freq: 3 })
    })
  ],
  [
    1,
    fc.record({
      _tag: fc.constant("AddKey" as const),
      pick: fc.nat(),
      key: fc.constantFrom(
        "__proto__",
        "constructor",
        "prototype",
        "unknownField",
        "$where",
        "tenantId",
        "id",
        "",
        "\u0000",
        "\ud800"
      ),
      hostile: hostileArb
    })
  ],
  [1, fc.record({ _tag: fc.constant("DuplicateKey" as const), pick: fc.nat(), hostile: hostileArb })]
)

/**
 * `ast` without the refinements `Arbitrary` can only meet by filtering (custom `Schema.filter`s, as
 * opposed to the built-in ones it generates within: patterns, lengths, integer bounds, UUIDs): a
 * filter random values rarely pass makes fast-check retry forever. A class is replaced by its
 * fields. Values of the result are valid but for those refinements.
 */
const relax = (ast: AST.AST): AST.AST => {
  switch (ast._tag) {
    case "Refinement":
      return Option.isSome(AST.getSchemaIdAnnotation(ast))
        ? new AST.Refinement(relax(ast.from), ast.filter, ast.annotations)
        : relax(ast.from)
    case "TypeLiteral":
      return new AST.TypeLiteral(
        ast.propertySignatures.map((p) =>
          new AST.PropertySignature(p.name, relax(p.type), p.isOptional, p.isReadonly, p.annotations)
        ),
        ast.indexSignatures.map((i) => new AST.IndexSignature(i.parameter, relax(i.type), i.isReadonly)),
        ast.annotations
      )
    case "Union":
      return AST.Union.make(ast.types.map(relax), ast.annotations)
    case "TupleType":
      return new AST.TupleType(
        ast.elements.map((e) => new AST.OptionalType(relax(e.type), e.isOptional, e.annotations)),
        ast.rest.map((r) => new AST.Type(relax(r.type), r.annotations)),
        ast.isReadonly,
        ast.annotations
      )
    case "Transformation":
      // a class: its fields
      if (ast.to._tag === "Declaration" && Option.isSome(AST.getSurrogateAnnotation(ast.to))) return relax(ast.from)
      return new AST.Transformation(relax(ast.from), relax(ast.to), ast.transformation, ast.annotations)
    case "Suspend":
      return new AST.Suspend(() => relax(ast.f()), ast.annotations)
    default:
      return ast
  }
}

/**
 * Values of a schema, as sent: valid ones (of the schema without its custom filters, encoded) and
 * ones of its encoded side (any string where a timestamp goes); any JSON where neither can be made.
 */
const schemaArb = (schema: Schema.Schema.Any | undefined): fc.Arbitrary<unknown> => {
  if (schema === undefined) return fc.jsonValue({ maxDepth: 3 })
  const attempt = (make: () => fc.Arbitrary<unknown>): fc.Arbitrary<unknown> | undefined => {
    try {
      const arbitrary = make()
      // some arbitraries only fail when sampled
      fc.sample(arbitrary, { numRuns: 5, seed: 1 })
      return arbitrary
    } catch {
      return undefined
    }
  }
  const valid = attempt(() => {
    const relaxed = Schema.make<unknown, unknown, never>(relax(schema.ast))
    const encode = Schema.encodeEither(relaxed)
    return (Arbitrary.make(relaxed) as fc.Arbitrary<unknown>).map((v) => Either.getOrElse(encode(v), () => v))
  })
  const encoded = attempt(() =>
    Arbitrary.make(Schema.encodedSchema(schema as Schema.Schema<unknown, unknown, never>)) as fc.Arbitrary<unknown>
  )
  const found = [...(valid === undefined ? [] : [valid, valid]), ...(encoded === undefined ? [] : [encoded])]
  return found.length === 0 ? fc.jsonValue({ maxDepth: 3 }) : fc.oneof(...found)
}

/** Form bodies (`application/x-www-form-urlencoded`) of a JSON value: its top-level members. */
const formOf = (v: unknown): string => {
  if (typeof v !== "object" || v === null || Array.isArray(v)) {
    return `value=${encodeURIComponent(JSON.stringify(v) ?? "")}`
  }
  return Object.entries(v).map(([k, x]) =>
    `${encodeURIComponent(k)}=${encodeURIComponent(typeof x === "string" ? x : JSON.stringify(x) ?? "")}`
  )
    .join("&")
}

/** What is wrong with the media type, if anything. */
type MediaChoice =
  | "right"
  | "right with charset"
  | "wrong charset"
  | "form"
  | "text/plain"
  | "application/xml"
  | "multipart without boundary"
  | "none"
  | "+json"
  | "garbage"

const mediaArb: fc.Arbitrary<MediaChoice> = weighted<MediaChoice>(
  [1, fc.constant("right")],
  [2, fc.constant("right with charset")],
  [2, fc.constant("+json")],
  [1, fc.constant("wrong charset")],
  [1, fc.constant("form")],
  [1, fc.constant("text/plain")],
  [1, fc.constant("application/xml")],
  [1, fc.constant("multipart without boundary")],
  [1, fc.constant("none")],
  [1, fc.constant("garbage")]
)

const JSON_TYPES: Record<MediaChoice, string | undefined> = {
  right: "application/json",
  "right with charset": "application/json; charset=UTF-8",
  "+json": "application/merge-patch+json",
  "wrong charset": "application/json; charset=iso-8859-1",
  form: "application/x-www-form-urlencoded",
  "text/plain": "text/plain",
  "application/xml": "application/xml",
  "multipart without boundary": "multipart/form-data",
  none: undefined,
  garbage: "json"
}

type PathChoice =
  | { readonly _tag: "Fixture" }
  | { readonly _tag: "Uuid"; readonly uuid: string }
  | { readonly _tag: "Raw"; readonly label: string; readonly segment: string }

const pathArb: fc.Arbitrary<PathChoice> = weighted<PathChoice>(
  [2, fc.constant({ _tag: "Fixture" as const })],
  [2, fc.uuid({ version: [4, 7] }).map((uuid) => ({ _tag: "Uuid" as const, uuid }))],
  [
    4,
    fc.constantFrom<PathChoice>(
      { _tag: "Raw", label: "not a UUID", segment: "not-a-uuid" },
      { _tag: "Raw", label: "number", segment: "1" },
      { _tag: "Raw", label: "negative", segment: "-1" },
      { _tag: "Raw", label: "%00", segment: "%00" },
      { _tag: "Raw", label: "UUID and %00", segment: "00000000-0000-7000-8000-000000000000%00" },
      { _tag: "Raw", label: "encoded lone surrogate", segment: "%ED%A0%80" },
      { _tag: "Raw", label: "malformed percent", segment: "%ZZ" },
      { _tag: "Raw", label: "encoded slash", segment: "..%2F..%2Fetc" },
      { _tag: "Raw", label: "RTL override", segment: "%E2%80%AEabc" },
      { _tag: "Raw", label: "uppercase UUID", segment: "0190A6F1-4C3B-7D2E-8F10-1A2B3C4D5E6F" },
      { _tag: "Raw", label: "UUID in braces", segment: "%7B0190a6f1-4c3b-7d2e-8f10-1a2b3c4d5e6f%7D" },
      { _tag: "Raw", label: "2,000 characters", segment: "a".repeat(2_000) },
      { _tag: "Raw", label: "20,000 characters", segment: "a".repeat(20_000) },
      { _tag: "Raw", label: "SQL", segment: "1'%20OR%20'1'%3D'1" }
    )
  ]
)

const hostileQueryValues: ReadonlyArray<readonly [string, string]> = [
  ["%00", "%00"],
  ["-1", "-1"],
  ["0", "0"],
  ["1e400", "1e400"],
  ["2^53+1", "9007199254740993"],
  ["huge", "999999999999999999999"],
  ["empty", ""],
  ["malformed percent", "%ZZ"],
  ["encoded lone surrogate", "%ED%A0%80"],
  ["control characters", "%01%1B%7F"],
  ["RTL override", "%E2%80%AE"],
  ["5,000 characters", "x".repeat(5_000)],
  ["date far away", "%2B275760-09-13T00%3A00%3A00.001Z"],
  ["year 0", "0000-01-01T00%3A00%3A00Z"],
  ["past year 9999 in UTC", "9999-12-31T23%3A59%3A59.999-14%3A00"],
  ["before year 1 in UTC", "0001-01-01T00%3A00%3A00%2B14%3A00"],
  ["not a date", "yesterday"],
  ["array", "%5B1%5D"]
]

const numericQueryKin: ReadonlyArray<Hostile> = [
  value("0", "0"),
  value("-1", "-1"),
  value("largest page", "999999999"),
  value("one past the largest page", "1000000000"),
  value("2^53+1", "9007199254740993"),
  value("leading zeros", "0001"),
  value("plus sign", "+1"),
  value("exponent", "1e2"),
  value("hex", "0x10"),
  value("fraction", "1.5"),
  value("101", "101"),
  value("fullwidth digit", "１")
]

type QueryChoice =
  | { readonly _tag: "None" }
  | {
    readonly _tag: "Generated"
    readonly params: Record<string, unknown>
    readonly hostile: number | undefined
    readonly pick: number
  }
  | { readonly _tag: "Junk"; readonly hostile: number }
  | { readonly _tag: "Repeated"; readonly pick: number }

const queryArb = (endpoint: Endpoint): fc.Arbitrary<QueryChoice> =>
  endpoint.urlParams === undefined
    ? weighted<QueryChoice>(
      [8, fc.constant({ _tag: "None" as const })],
      [1, fc.nat(hostileQueryValues.length - 1).map((hostile) => ({ _tag: "Junk" as const, hostile }))]
    )
    : weighted<QueryChoice>(
      [1, fc.constant({ _tag: "None" as const })],
      [
        6,
        fc.record({
          _tag: fc.constant("Generated" as const),
          params: schemaArb(endpoint.urlParams).map((
            v
          ) => (typeof v === "object" && v !== null ? v as Record<string, unknown> : {})),
          hostile: fc.option(fc.nat(hostileQueryValues.length - 1), { nil: undefined, freq: 4 }),
          pick: fc.nat()
        })
      ],
      [1, fc.nat(hostileQueryValues.length - 1).map((hostile) => ({ _tag: "Junk" as const, hostile }))],
      [1, fc.nat().map((pick) => ({ _tag: "Repeated" as const, pick }))]
    )

const queryString = (
  endpoint: Endpoint,
  choice: QueryChoice
): { readonly text: string; readonly label: string | undefined } => {
  switch (choice._tag) {
    case "None":
      return { text: "", label: undefined }
    case "Junk": {
      const [label, text] = hostileQueryValues[choice.hostile]!
      return { text: `?junk=${text}`, label: `query junk=${label}` }
    }
    case "Repeated": {
      const names = endpoint.urlParams === undefined ? ["page"] : fieldsOf(endpoint.urlParams)
      const name = names[choice.pick % Math.max(1, names.length)] ?? "page"
      return { text: `?${name}=1&${name}=2`, label: `query ${name} twice` }
    }
    case "Generated": {
      const params = Object.fromEntries(
        Object.entries(choice.params).filter(([, v]) => v !== undefined).map((
          [k, v]
        ) => [k, v instanceof Date ? v.toISOString() : v])
      )
      const entries = Object.entries(params)
        .map(([k, v]) => [k, encodeURIComponent(typeof v === "string" ? v : JSON.stringify(v) ?? String(v))] as const)
      let label: string | undefined = undefined
      if (choice.hostile !== undefined) {
        const names = fieldsOf(endpoint.urlParams!)
        const name = names[choice.pick % Math.max(1, names.length)] ?? "page"
        const index = entries.findIndex(([k]) => k === name)
        const current = typeof params[name] === "string" ? params[name] as string : ""
        const kin = semanticKin(current) ?? (/^\d+$/.test(current) ? numericQueryKin : undefined)
        const [what, text] = kin === undefined
          ? hostileQueryValues[choice.hostile]!
          : [
            kin[choice.hostile % kin.length]!.label,
            encodeURIComponent(String((kin[choice.hostile % kin.length] as { value: unknown }).value))
          ]
        if (index === -1) entries.push([name, text])
        else entries[index] = [name, text]
        label = `query ${name}=${what}`
      }
      return {
        text: entries.length === 0 ? "" : `?${entries.map(([k, v]) => `${encodeURIComponent(k)}=${v}`).join("&")}`,
        label
      }
    }
  }
}

/** The property names of a struct schema (through classes, transformations and refinements). */
const fieldsOf = (schema: Schema.Schema.Any): ReadonlyArray<string> => {
  let ast: any = Schema.encodedSchema(schema as Schema.Schema<unknown, unknown, never>).ast
  while (ast._tag === "Refinement" || ast._tag === "Transformation") {
    ast = ast._tag === "Refinement"
      ? ast.from
      : ast.from
  }
  return ast._tag === "TypeLiteral" ? ast.propertySignatures.map((p: any) => String(p.name)) : []
}

type AuthChoice =
  | "preferred"
  | "key"
  | "session"
  | "none"
  | "garbage"
  | "basic"
  | "made-up key"
  | "expired-looking token"

const authArb: fc.Arbitrary<AuthChoice> = weighted<AuthChoice>(
  [1, fc.constant("preferred")],
  [2, fc.constant("session")],
  [1, fc.constant("key")],
  [1, fc.constant("none")],
  [1, fc.constant("garbage")],
  [1, fc.constant("basic")],
  [1, fc.constant("made-up key")],
  [1, fc.constant("expired-looking token")]
)

const authorization = (endpoint: Endpoint, choice: AuthChoice, f: Fixtures): string | undefined => {
  switch (choice) {
    case "preferred":
      return endpoint.credential === "session"
        ? `Bearer ${f.session}`
        : endpoint.credential === "key"
        ? `Bearer ${f.key}`
        : undefined
    case "key":
      return `Bearer ${f.key}`
    case "session":
      return `Bearer ${f.session}`
    case "none":
      return undefined
    case "garbage":
      return "Bearer garbage!!"
    case "basic":
      return "Basic dXNlcjpwYXNz"
    case "made-up key":
      return `Bearer ${f.key.slice(0, -8)}AAAAAAAA`
    case "expired-looking token":
      return "Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4IiwiZXhwIjoxfQ.c2lnbmF0dXJl"
  }
}

/** What the body is. */
type BodyChoice =
  | { readonly _tag: "Valid" }
  | { readonly _tag: "Generated"; readonly value: unknown }
  | {
    readonly _tag: "Mutated"
    readonly fromValid: boolean
    readonly value: unknown
    readonly mutations: ReadonlyArray<Mutation>
  }
  | { readonly _tag: "NotJson"; readonly index: number }
  | { readonly _tag: "Oversized"; readonly bytes: number }
  | { readonly _tag: "None" }

const bodyArb = (endpoint: Endpoint): fc.Arbitrary<BodyChoice> => {
  const generated = schemaArb(endpoint.payload)
  return weighted<BodyChoice>(
    [3, fc.constant({ _tag: "Valid" as const })],
    [2, generated.map((value) => ({ _tag: "Generated" as const, value }))],
    [
      12,
      fc.record({
        _tag: fc.constant("Mutated" as const),
        fromValid: fc.boolean(),
        value: generated,
        mutations: fc.array(mutationArb, { minLength: 1, maxLength: 2 })
      })
    ],
    [3, fc.nat(notJson.length - 1).map((index) => ({ _tag: "NotJson" as const, index }))],
    [1, fc.constantFrom(1_100_000, 1_600_000).map((bytes) => ({ _tag: "Oversized" as const, bytes }))],
    [1, fc.constant({ _tag: "None" as const })]
  )
}

// multipart ---------------------------------------------------------------------------------

const BOUNDARY = "fuzz-boundary-7MA4YWxkTrZu0gW"

const part = (headers: string, content: Uint8Array | string) =>
  Buffer.concat([
    Buffer.from(`--${BOUNDARY}\r\n${headers}\r\n\r\n`, "utf8"),
    typeof content === "string" ? Buffer.from(content) : Buffer.from(content),
    Buffer.from("\r\n")
  ])

const filePart = (name: string, filename: string, type: string, content: Uint8Array | string) =>
  part(`content-disposition: form-data; name="${name}"; filename="${filename}"\r\ncontent-type: ${type}`, content)

const closing = Buffer.from(`--${BOUNDARY}--\r\n`)

type MultipartChoice =
  | { readonly _tag: "Valid"; readonly content: string }
  | { readonly _tag: "HostileContent"; readonly hostile: Hostile; readonly content: string }
  | { readonly _tag: "HostileName"; readonly filename: string; readonly label: string }
  | { readonly _tag: "Shape"; readonly label: string }

const multipartArb = (csv: boolean): fc.Arbitrary<MultipartChoice> => {
  const quoted = (json: string) => `"${json.replaceAll("\"", "\"\"")}"`
  const cell = fc.oneof(
    // every number a campaign could dial is one the simulated carrier refuses at once
    fc.constantFrom(
      refusedNumber(1),
      refusedNumber(2),
      "+1 (415) 203-9004",
      "",
      "\u0000",
      "\ud800",
      "=cmd|' /C calc'!A0",
      "\"q,\"\"uote\""
    ),
    fc.string({ maxLength: 8 }),
    // metadata cells: JSON that the JSON routes would refuse
    fc.constantFrom(
      quoted("{\"plan\":\"gold\"}"),
      quoted(`{"a":${"[".repeat(17)}${"]".repeat(17)}}`),
      quoted(`{"a":${"[".repeat(5_000)}${"]".repeat(5_000)}}`),
      quoted("{\"a\":\"\\u0000\"}"),
      quoted("{\"a\":\"\\udfff\"}"),
      quoted("{\"a\":1e400}"),
      quoted("{\"\\u0000\":1}"),
      quoted("[1,2]")
    )
  )
  const content = csv
    ? fc.tuple(
      fc.constantFrom("phone,name,email", "phone,name,metadata", "phone,notes,metadata,email", "phone,\u0000,name"),
      // mostly a number that is valid, so that the row's other cells are what decides
      fc.array(
        fc.tuple(
          weighted([4, fc.nat(799).map(refusedNumber)], [1, cell]),
          fc.array(cell, { minLength: 0, maxLength: 3 })
        ),
        { maxLength: 6 }
      )
    ).map(([header, rows]) => [header, ...rows.map(([phone, rest]) => [phone, ...rest].join(","))].join("\n") + "\n")
    : fc.string({ unit: "grapheme", maxLength: 200 }).map((s) => `Opening hours. ${s}`)
  return weighted<MultipartChoice>(
    [4, content.map((c) => ({ _tag: "Valid" as const, content: c }))],
    [3, fc.record({ _tag: fc.constant("HostileContent" as const), hostile: hostileArb, content })],
    [
      2,
      fc.constantFrom(
        { filename: "a\u0000b.csv", label: "NUL in filename" },
        { filename: "\u202egnp.csv", label: "RTL override in filename" },
        { filename: `${"n".repeat(5_000)}.csv`, label: "5,000-character filename" },
        { filename: "../../etc/passwd", label: "path in filename" },
        { filename: "", label: "empty filename" },
        { filename: "virus.exe", label: "unsupported extension" },
        { filename: "a\ud800.txt", label: "lone surrogate in filename" },
        // RFC 5987 names, decoded by the parser
        { filename: "*=UTF-8''a%ZZb.csv", label: "filename* not percent-encoded" },
        { filename: "*=UTF-8''a%00b.csv", label: "filename* with %00" },
        { filename: "*=UTF-8''a%ED%A0%80b.csv", label: "filename* with an encoded surrogate" },
        { filename: "*=UTF-8''%E2%80%AEvsc.exe", label: "filename* with an RTL override" },
        { filename: "*=ISO-8859-1''caf%E9.csv", label: "filename* in Latin-1" },
        { filename: "*=UTF-8'en'", label: "empty filename*" },
        { filename: "*=garbage", label: "filename* without a charset" }
      ).map((f) => ({ _tag: "HostileName" as const, ...f }))
    ],
    [
      3,
      fc.constantFrom(
        "no parts",
        "no closing boundary",
        "part without filename",
        "wrong field name",
        "20 files",
        "empty file",
        "invalid UTF-8 file",
        "binary NULs",
        "preamble and epilogue",
        "headers without blank line",
        "3 MiB file"
      ).map((label) => ({ _tag: "Shape" as const, label }))
    ]
  )
}

const multipartBody = (
  csv: boolean,
  choice: MultipartChoice
): { readonly bytes: Uint8Array; readonly label: string } => {
  const name = csv ? "contacts.csv" : "notes.txt"
  const type = csv ? "text/csv" : "text/plain"
  switch (choice._tag) {
    case "Valid":
      return { bytes: Buffer.concat([filePart("file", name, type, choice.content), closing]), label: "valid upload" }
    case "HostileContent": {
      const text = "raw" in choice.hostile
        ? choice.hostile.raw
        : typeof choice.hostile.value === "string"
        ? choice.hostile.value
        : JSON.stringify(choice.hostile.value)
      return {
        bytes: Buffer.concat([filePart("file", name, type, choice.content + text + "\n"), closing]),
        label: `file content + ${choice.hostile.label}`
      }
    }
    case "HostileName": {
      const content = `phone\n${refusedNumber(3)}\n`
      const file = choice.filename.startsWith("*=")
        ? part(
          `content-disposition: form-data; name="file"; filename${choice.filename}\r\ncontent-type: ${type}`,
          content
        )
        : filePart("file", choice.filename, type, content)
      return { bytes: Buffer.concat([file, closing]), label: choice.label }
    }
    case "Shape": {
      const ok = "phone\n+14155559004\n"
      const bytes = (() => {
        switch (choice.label) {
          case "no parts":
            return closing
          case "no closing boundary":
            return filePart("file", name, type, ok)
          case "part without filename":
            return Buffer.concat([part(`content-disposition: form-data; name="file"`, ok), closing])
          case "wrong field name":
            return Buffer.concat([filePart("files[]", name, type, ok), closing])
          case "20 files":
            return Buffer.concat([...Array.from({ length: 20 }, () => filePart("file", name, type, ok)), closing])
          case "empty file":
            return Buffer.concat([filePart("file", name, type, ""), closing])
          case "invalid UTF-8 file":
            return Buffer.concat([
              filePart("file", name, type, Uint8Array.from([0xff, 0xfe, 0x00, 0xc0, 0x80, 0x0a])),
              closing
            ])
          case "binary NULs":
            return Buffer.concat([filePart("file", name, "application/octet-stream", new Uint8Array(4_096)), closing])
          case "preamble and epilogue":
            return Buffer.concat([
              Buffer.from("preamble\r\n"),
              filePart("file", name, type, ok),
              closing,
              Buffer.from("epilogue")
            ])
          case "headers without blank line":
            return Buffer.from(
              `--${BOUNDARY}\r\ncontent-disposition: form-data; name="file"; filename="a.csv"\r\n--${BOUNDARY}--\r\n`
            )
          default:
            return Buffer.concat([filePart("file", name, type, "phone\n" + "+14155559004\n".repeat(250_000)), closing])
        }
      })()
      return { bytes, label: choice.label }
    }
  }
}

// the whole case ------------------------------------------------------------------------------

/**
 * Which part of the request is hostile: most cases change one thing in an otherwise valid request,
 * so that it reaches the code behind the checks before it; some change everything at once.
 */
type Focus = "body" | "media" | "path" | "query" | "auth" | "method" | "headers" | "valid" | "everything"

const focusArb: fc.Arbitrary<Focus> = weighted<Focus>(
  [12, fc.constant("body")],
  [2, fc.constant("media")],
  [3, fc.constant("path")],
  [3, fc.constant("query")],
  [2, fc.constant("auth")],
  [1, fc.constant("method")],
  [1, fc.constant("headers")],
  [1, fc.constant("valid")],
  [2, fc.constant("everything")]
)

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "HEAD"] as const

/** Headers beside the ones a route reads, or hostile versions of those. */
const extraHeaders: ReadonlyArray<
  { readonly label: string; readonly headers: () => Record<string, string | ReadonlyArray<string>> }
> = [
  { label: "an idempotency key", headers: () => ({ "idempotency-key": `fuzz-${next()}` }) },
  { label: "an empty idempotency key", headers: () => ({ "idempotency-key": "" }) },
  { label: "a 129-character idempotency key", headers: () => ({ "idempotency-key": "k".repeat(129) }) },
  { label: "a Latin-1 idempotency key", headers: () => ({ "idempotency-key": "cl\u00e9" }) },
  { label: "two idempotency keys", headers: () => ({ "idempotency-key": ["a-1", "b-2"] }) },
  { label: "a request id with a path", headers: () => ({ "x-request-id": "../../etc/passwd" }) },
  { label: "an 8 KB request id", headers: () => ({ "x-request-id": "r".repeat(8_000) }) },
  { label: "garbage X-Forwarded-For", headers: () => ({ "x-forwarded-for": "garbage, 999.1.1.1, ::ffff:1, " }) },
  { label: "Content-Encoding gzip on a plain body", headers: () => ({ "content-encoding": "gzip" }) },
  { label: "Accept application/xml", headers: () => ({ accept: "application/xml" }) },
  { label: "Expect 100-continue", headers: () => ({ expect: "100-continue" }) },
  { label: "Connection: upgrade to websocket", headers: () => ({ connection: "upgrade", upgrade: "websocket" }) },
  { label: "an origin", headers: () => ({ origin: "https://evil.example" }) },
  { label: "X-HTTP-Method-Override DELETE", headers: () => ({ "x-http-method-override": "DELETE" }) },
  { label: "a Twilio signature that is wrong", headers: () => ({ "x-twilio-signature": "AAAA" }) },
  { label: "a chat-app signature that is wrong", headers: () => ({ "x-hub-signature-256": "sha256=00" }) },
  {
    label: "a Telnyx signature that is wrong",
    headers: () => ({ "telnyx-signature-ed25519": "AAAA", "telnyx-timestamp": "0" })
  }
]

export interface Case {
  readonly focus: Focus
  readonly method: (typeof METHODS)[number]
  readonly extra: number
  readonly path: ReadonlyArray<PathChoice>
  readonly query: QueryChoice
  readonly auth: AuthChoice
  readonly body: BodyChoice
  readonly multipart: MultipartChoice | undefined
  readonly media: MediaChoice
  readonly chunked: boolean
  readonly signed: boolean
}

export const caseArb = (endpoint: Endpoint): fc.Arbitrary<Case> =>
  fc.record({
    focus: focusArb,
    method: fc.constantFrom(...METHODS),
    extra: fc.nat(extraHeaders.length - 1),
    path: fc.tuple(...endpoint.params.map(() => pathArb)) as fc.Arbitrary<ReadonlyArray<PathChoice>>,
    query: queryArb(endpoint),
    auth: authArb,
    body: bodyArb(endpoint),
    multipart: endpoint.body === "multipart"
      ? multipartArb(endpoint.path.includes("contact-lists")).map((m): MultipartChoice | undefined => m)
      : fc.constant(undefined),
    media: mediaArb,
    chunked: weighted([4, fc.constant(false)], [1, fc.constant(true)]),
    signed: weighted([5, fc.constant(true)], [1, fc.constant(false)])
  }).map((c): Case => {
    // a route without a body has nothing there to make hostile: its query, path or credential instead
    const focus: Focus = c.focus !== "body" || (endpoint.method !== "GET" && endpoint.method !== "DELETE")
      ? c.focus
      : endpoint.urlParams !== undefined
      ? "query"
      : endpoint.params.length > 0
      ? "path"
      : "auth"
    const hostile = (part: Focus) => focus === part || focus === "everything"
    return {
      ...c,
      path: hostile("path") ? c.path : c.path.map(() => ({ _tag: "Fixture" as const })),
      query: hostile("query") ? c.query : { _tag: "None" },
      auth: hostile("auth") ? c.auth : "preferred",
      media: hostile("media") ? c.media : "right",
      body: hostile("body") ? c.body : { _tag: "Valid" },
      multipart: c.multipart === undefined || hostile("body")
        ? c.multipart
        : { _tag: "Valid", content: "phone\n+14155559004\n" }
    }
  })

/** The request a case describes, for `endpoint` with these fixtures. */
export const requestOf = (endpoint: Endpoint, c: Case, f: Fixtures): WireRequest => {
  const labels: Array<string> = []
  // path
  let pathText = endpoint.path
  endpoint.params.forEach((param, i) => {
    const choice = c.path[i]!
    const segment = choice._tag === "Fixture"
      ? encodeURIComponent(fixtureFor(f, endpoint.path, param))
      : choice._tag === "Uuid"
      ? choice.uuid
      : choice.segment
    if (choice._tag === "Uuid") labels.push(`${param}: random UUID`)
    if (choice._tag === "Raw") labels.push(`${param}: ${choice.label}`)
    pathText = pathText.replace(`:${param}`, segment)
  })
  const query = queryString(endpoint, c.query)
  if (query.label !== undefined) labels.push(query.label)

  const headers: Record<string, string | ReadonlyArray<string>> = {}
  const auth = authorization(endpoint, c.auth, f)
  if (auth !== undefined) headers["authorization"] = auth
  if (c.auth !== "preferred") labels.push(`auth: ${c.auth}`)

  let body: Uint8Array | undefined
  let json: unknown = undefined
  const reads = endpoint.method !== "GET"
  if (reads && endpoint.body === "multipart" && c.multipart !== undefined && c.body._tag !== "Oversized") {
    const built = multipartBody(endpoint.path.includes("contact-lists"), c.multipart)
    body = built.bytes
    labels.push(built.label)
    const media = c.media === "right" || c.media === "right with charset" || c.media === "+json" ? "right" : c.media
    if (media === "right") headers["content-type"] = `multipart/form-data; boundary=${BOUNDARY}`
    else if (media === "wrong charset") headers["content-type"] = `multipart/form-data; boundary="${BOUNDARY} "`
    else if (JSON_TYPES[media] !== undefined) headers["content-type"] = JSON_TYPES[media]!
    if (media !== "right") {
      labels.push(`content-type: ${media === "wrong charset" ? "boundary ending in a space" : media}`)
    }
  } else if (reads || c.body._tag === "NotJson") {
    switch (c.body._tag) {
      case "None":
        labels.push("no body")
        break
      case "Valid":
        json = validBody(endpoint, f)
        body = encoder.encode(JSON.stringify(json ?? {}))
        labels.push("valid body")
        break
      case "Generated":
        json = c.body.value
        body = encoder.encode(JSON.stringify(json) ?? "null")
        labels.push("generated body")
        break
      case "Mutated": {
        const base = c.body.fromValid ? (validBody(endpoint, f) ?? c.body.value) : c.body.value
        let text = JSON.stringify(base) ?? "null"
        for (const mutation of c.body.mutations) {
          const mutated = mutate(JSON.parse(text), mutation)
          // a raw splice may have made the text unparseable, or too deep to copy, for the next mutation
          text = mutated.text
          labels.push(mutated.label)
          if (nestsDeeperThan(text, 64)) break
          try {
            JSON.parse(text)
          } catch {
            break
          }
        }
        body = encoder.encode(text)
        json = base
        break
      }
      case "NotJson":
        body = notJson[c.body.index]!.bytes
        labels.push(`not JSON: ${notJson[c.body.index]!.label}`)
        break
      case "Oversized":
        body = encoder.encode(JSON.stringify({ padding: "x".repeat(c.body.bytes) }))
        labels.push(`${(c.body.bytes / 1_000_000).toFixed(1)} MB body`)
        break
    }
    if (body !== undefined) {
      if (endpoint.body === "form") {
        // the carriers' callbacks: a form; its JSON counterpart is the wrong media type here
        const form = c.body._tag === "NotJson" || c.body._tag === "Oversized"
          ? Buffer.from(body).toString("utf8")
          : formOfText(body)
        const media = c.media
        body = encoder.encode(form)
        if (media === "right" || media === "right with charset") {
          headers["content-type"] = media === "right"
            ? "application/x-www-form-urlencoded"
            : "application/x-www-form-urlencoded; charset=utf-8"
        } else if (media === "form") {
          headers["content-type"] = "application/json"
          labels.push("content-type: application/json")
        } else if (JSON_TYPES[media] !== undefined) {
          headers["content-type"] = JSON_TYPES[media]!
          labels.push(`content-type: ${media}`)
        } else {
          labels.push("content-type: none")
        }
        if (c.signed && endpoint.path.includes("/twilio/")) {
          const params = Object.fromEntries(new URLSearchParams(form))
          const url = `${f.publicUrl}${pathText}`
          headers["x-twilio-signature"] = computeSignature(f.twilioAuthToken, url, params)
        }
      } else {
        const type = JSON_TYPES[c.media]
        if (c.media === "form" && json !== undefined) body = encoder.encode(formOf(json))
        if (type !== undefined) headers["content-type"] = type
        if (c.media !== "right") labels.push(`content-type: ${type ?? "none"}`)
      }
      if (c.signed && endpoint.path.startsWith("/api/v1/chatapp/webhook/")) {
        headers["x-hub-signature-256"] = signWebhookBody(f.chatAppSecret, Buffer.from(body).toString("utf8"))
      }
      if (c.signed && endpoint.path.includes("/telnyx/")) {
        const timestamp = String(Math.floor(Date.now() / 1000))
        headers["telnyx-timestamp"] = timestamp
        headers["telnyx-signature-ed25519"] = signTelnyxWebhook(f.telnyxPrivateKey, timestamp, body)
      }
    }
  }
  if (body !== undefined && c.chunked) labels.push("chunked")
  const method = c.focus === "method" || c.focus === "everything" ? c.method : endpoint.method
  if (method !== endpoint.method) labels.push(`method ${method}`)
  if (c.focus === "headers" || c.focus === "everything") {
    const extra = extraHeaders[c.extra]!
    Object.assign(headers, extra.headers())
    labels.push(extra.label)
  }
  return {
    endpoint,
    method,
    target: pathText + query.text,
    headers,
    body,
    chunked: body !== undefined && c.chunked,
    label: labels.length === 0 ? "as documented" : labels.join("; ")
  }
}

/** A JSON body's top-level members as a form (a Twilio callback's fields, hostile ones included). */
const formOfText = (bytes: Uint8Array): string => {
  const text = Buffer.from(bytes).toString("utf8")
  try {
    return formOf(JSON.parse(text))
  } catch {
    return text
  }
}
