/**
 * The pure rules of post-call messaging: how an SMS body is encoded and cut into segments, how
 * `{{ placeholder }}` templates are rendered for a contact, which configured template a finished
 * call selects, and the small validators the campaign schemas use.
 *
 * SMS arithmetic follows 3GPP TS 23.038 / TS 23.040:
 *
 * - A body is sent in the GSM 7-bit default alphabet when every character is in the basic table or
 *   the extension table; otherwise it is sent as UCS-2 (UTF-16 in practice).
 * - GSM7 counts septets: a basic character costs 1, an extension character costs 2 (escape + char).
 *   Up to 160 septets fit one message; longer bodies are concatenated at 153 septets per segment
 *   (7 septets go to the user-data header), and an escape is never separated from its character.
 * - UCS2 counts UTF-16 code units: up to 70 fit one message; longer bodies are concatenated at 67
 *   per segment, and a surrogate pair (an emoji, say) is never split across segments.
 *
 * Segments are packed greedily in order, so the segment count is the length of `splitSegments`,
 * which can exceed `ceil(units / perSegment)` when an extension character or a surrogate pair
 * would straddle a boundary.
 */
import type { CallOutcome } from "./CallMachine.js"

// ---------------------------------------------------------------------------------------------
// SMS encoding and segments
// ---------------------------------------------------------------------------------------------

/**
 * The GSM 7-bit default alphabet (3GPP TS 23.038 §6.2.1), in table order 0x00..0x7F, without
 * 0x1B (the escape to the extension table, which is not a character of its own).
 */
const GSM7_BASIC_TABLE = "@£$¥èéùìòÇ\nØø\rÅå" +
  "Δ_ΦΓΛΩΠΨΣΘΞ" + /* 0x1B escape */ "ÆæßÉ" +
  " !\"#¤%&'()*+,-./" +
  "0123456789:;<=>?" +
  "¡ABCDEFGHIJKLMNO" +
  "PQRSTUVWXYZÄÖÑÜ§" +
  "¿abcdefghijklmno" +
  "pqrstuvwxyzäöñüà"

/**
 * The GSM 7-bit default alphabet extension table (3GPP TS 23.038 §6.2.1.1): form feed,
 * `^ { } \ [ ~ ] | €`. Each is sent as escape + character and costs 2 septets.
 */
const GSM7_EXTENSION_TABLE = "\f^{}\\[~]|€"

/** The 127 characters of the GSM 7-bit basic table (every position but the escape 0x1B). */
export const GSM7_BASIC: ReadonlySet<string> = new Set(GSM7_BASIC_TABLE)

/** The 10 characters of the GSM 7-bit extension table, each costing 2 septets. */
export const GSM7_EXTENSION: ReadonlySet<string> = new Set(GSM7_EXTENSION_TABLE)

/** How an SMS body goes over the air. */
export type SmsEncoding = "GSM7" | "UCS2"

/** Per-encoding limits: units in a single message, and per segment of a concatenated one. */
export const SMS_LIMITS: { readonly [E in SmsEncoding]: { readonly single: number; readonly concatenated: number } } = {
  GSM7: { single: 160, concatenated: 153 },
  UCS2: { single: 70, concatenated: 67 }
}

/** The size of an SMS body. */
export interface SmsSegments {
  readonly encoding: SmsEncoding
  /** Septets (GSM7) or UTF-16 code units (UCS2) of the whole body. */
  readonly units: number
  /** Number of messages the body is sent as; 0 for an empty body. */
  readonly segments: number
  /** The unit limit that applies to each segment: 160/70 for a single message (or none), else 153/67. */
  readonly perSegment: number
}

/** `"GSM7"` when every character is in the basic or extension table (vacuously so for `""`), else `"UCS2"`. */
export const smsEncoding = (text: string): SmsEncoding => {
  for (const ch of text) {
    if (!GSM7_BASIC.has(ch) && !GSM7_EXTENSION.has(ch)) return "UCS2"
  }
  return "GSM7"
}

/** Septets of one GSM7 character (assumed to be in the alphabet). */
const septets = (ch: string): number => (GSM7_EXTENSION.has(ch) ? 2 : 1)

/** UTF-16 code units of one code point (a lone surrogate counts 1). */
const codeUnits = (ch: string): number => ch.length

const costFor = (encoding: SmsEncoding): (ch: string) => number => (encoding === "GSM7" ? septets : codeUnits)

const unitsOf = (text: string, cost: (ch: string) => number): number => {
  let units = 0
  for (const ch of text) units += cost(ch)
  return units
}

/**
 * The body cut into the segments it is sent as: `[]` for `""`, `[text]` when it fits one message,
 * else greedy segments of at most 153 septets (GSM7) or 67 code units (UCS2), never splitting an
 * extension character from its escape or a surrogate pair. The segments joined give back `text`.
 */
export const splitSegments = (text: string): Array<string> => {
  if (text === "") return []
  const encoding = smsEncoding(text)
  const cost = costFor(encoding)
  const limits = SMS_LIMITS[encoding]
  if (unitsOf(text, cost) <= limits.single) return [text]
  const out: Array<string> = []
  let current = ""
  let used = 0
  for (const ch of text) {
    const c = cost(ch)
    if (used + c > limits.concatenated) {
      out.push(current)
      current = ""
      used = 0
    }
    current += ch
    used += c
  }
  if (current !== "") out.push(current)
  return out
}

/** Encoding, size and segment count of an SMS body; `segments` always equals `splitSegments(text).length`. */
export const smsSegments = (text: string): SmsSegments => {
  const encoding = smsEncoding(text)
  const units = unitsOf(text, costFor(encoding))
  const limits = SMS_LIMITS[encoding]
  const segments = splitSegments(text).length
  return { encoding, units, segments, perSegment: segments > 1 ? limits.concatenated : limits.single }
}

// ---------------------------------------------------------------------------------------------
// Template placeholders
// ---------------------------------------------------------------------------------------------

/** The fill-in for `{{ name }}` when the contact has no (or a blank) name. */
export const NAME_FALLBACK = "Customer"

/**
 * A placeholder: `{{`, anything without braces, `}}`. The key is the content with surrounding
 * whitespace trimmed, so `{{name}}`, `{{ name }}` and `{{  name\t}}` are the same placeholder, and
 * a malformed one such as `{{ first name }}` is still found (and reported as unknown).
 */
const PLACEHOLDER = /\{\{([^{}]*)\}\}/g

const SUPPORTED_KEY = /^(?:name|email|phone|metadata\.[A-Za-z0-9_-]+)$/

const METADATA_PREFIX = "metadata."

/** Whether a placeholder key is one `renderTemplate` fills in. */
export const isSupportedPlaceholder = (key: string): boolean => SUPPORTED_KEY.test(key)

/** The distinct placeholder keys of a template (trimmed), in order of first appearance. */
export const placeholdersIn = (template: string): Array<string> => {
  const keys = new Set<string>()
  for (const match of template.matchAll(PLACEHOLDER)) keys.add(match[1].trim())
  return [...keys]
}

/**
 * The distinct placeholder keys a template uses that `renderTemplate` would not fill in (for
 * example `Name`, `first name`, `metadata.`, `metadata.a.b` or the empty key of `{{ }}`).
 */
export const unknownPlaceholders = (template: string): Array<string> =>
  placeholdersIn(template).filter((key) => !isSupportedPlaceholder(key))

/** What a template is rendered with: the contact of the call. */
export interface TemplateContext {
  readonly name: string | null
  readonly email: string | null
  readonly phone: string
  readonly metadata: { readonly [k: string]: unknown }
}

const metadataText = (metadata: { readonly [k: string]: unknown }, key: string): string => {
  if (!Object.hasOwn(metadata, key)) return ""
  const value = metadata[key]
  switch (typeof value) {
    case "string":
      return value
    case "number":
    case "boolean":
      return String(value)
    default:
      return ""
  }
}

/**
 * The template with every supported placeholder replaced, in a single pass (a substituted value is
 * never scanned again, so a name of `"{{email}}"` is sent literally):
 *
 * - `name`: the trimmed contact name, or `NAME_FALLBACK` when it is null or blank;
 * - `email`: the email, or `""` when null;
 * - `phone`: the phone as given;
 * - `metadata.<key>`: a string as is, a number or boolean via `String`, and `""` for a missing key,
 *   null, an object or an array.
 *
 * Unknown placeholders are left exactly as written.
 */
export const renderTemplate = (template: string, ctx: TemplateContext): string =>
  template.replace(PLACEHOLDER, (whole: string, inner: string) => {
    const key = inner.trim()
    if (!isSupportedPlaceholder(key)) return whole
    switch (key) {
      case "name": {
        const name = ctx.name?.trim() ?? ""
        return name === "" ? NAME_FALLBACK : name
      }
      case "email":
        return ctx.email ?? ""
      case "phone":
        return ctx.phone
      default:
        return metadataText(ctx.metadata, key.slice(METADATA_PREFIX.length))
    }
  })

// ---------------------------------------------------------------------------------------------
// Template selection after a call
// ---------------------------------------------------------------------------------------------

export type { CallOutcome }

/** Who placed the call: the agent (`OUTGOING`) or the contact (`INCOMING`). */
export type CallDirection = "OUTGOING" | "INCOMING"

/** The call outcomes a chat-app template can be configured for (a canceled call sends nothing). */
export type ChatAppCallStatus = "ANSWERED" | "UNANSWERED" | "FAILED" | "BUSY"

/** The call outcomes an SMS template can be configured for. */
export type SmsCallStatus = "ANSWERED" | "UNANSWERED"

/** The language of a mapping that names none (the campaign schema's default). */
export const DEFAULT_LANGUAGE_CODE = "en_US"

/**
 * A language tag in the form mappings use (`en_US`, `hi_IN`, `es`), or `undefined` when `value` is
 * not one: case is ignored and `-` is the same as `_` (`es-mx`, `ES_mx` and `es_MX` are all
 * `es_MX`), and the result must pass `isLanguageCode`. Anything else — not a string, `english`,
 * `xx_YY`, `en-Latn-US`, surrounding spaces — is `undefined`.
 */
export const normalizeLanguageCode = (value: unknown): string | undefined => {
  if (typeof value !== "string") return undefined
  const parts = value.split(/[-_]/)
  if (parts.length > 2) return undefined
  const code = parts.length === 1 ? parts[0].toLowerCase() : `${parts[0].toLowerCase()}_${parts[1].toUpperCase()}`
  return isLanguageCode(code) ? code : undefined
}

/** The primary language subtag of a normalized tag: `es` of `es_MX`. */
const primaryLanguage = (code: string): string => code.split("_")[0]

/**
 * What makes a chat-app mapping distinct: its direction, outcome and language (missing: `en_US`;
 * compared as `normalizeLanguageCode` writes it). A campaign may hold each key once, so the same
 * outcome can have one template per language.
 */
export const chatAppMappingKey = (mapping: {
  readonly process: CallDirection
  readonly callStatus: ChatAppCallStatus
  readonly languageCode?: string | undefined
}): string => {
  const language = mapping.languageCode ?? DEFAULT_LANGUAGE_CODE
  return `${mapping.process}/${mapping.callStatus}/${normalizeLanguageCode(language) ?? language}`
}

/**
 * The languages a post-call message should be in, best first: the contact's (`metadata.languageCode`
 * of the contact row) and the agent's (`settings.languageCode`). Either may be absent, and a value
 * that `normalizeLanguageCode` does not accept counts as absent.
 */
export interface MessageLanguages {
  readonly contact?: unknown
  readonly agent?: unknown
}

/**
 * The chat-app mapping to send after a call, or `undefined` when none is configured for the call's
 * direction and outcome (a `CANCELED` call never matches). Among the mappings for that
 * `(process, callStatus)`, in this order:
 *
 * 1. the one in the contact's language, exactly (`normalizeLanguageCode`: case-insensitive, `-` ≡ `_`);
 * 2. the one in the agent's language, exactly;
 * 3. the first with the contact's primary language subtag (contact `es_MX` → `es_ES`), then the first
 *    with the agent's;
 * 4. the `en_US` one;
 * 5. the first configured.
 *
 * A mapping without `languageCode` is `en_US`.
 */
export const chatAppTemplateFor = <
  T extends {
    readonly process: CallDirection
    readonly callStatus: ChatAppCallStatus
    readonly languageCode?: string | undefined
  }
>(
  templates: ReadonlyArray<T>,
  direction: CallDirection,
  outcome: CallOutcome,
  languages: MessageLanguages = {}
): T | undefined => {
  if (outcome === "CANCELED") return undefined
  const candidates = templates
    .filter((t) => t.process === direction && t.callStatus === outcome)
    .map((template) => ({ template, code: normalizeLanguageCode(template.languageCode ?? DEFAULT_LANGUAGE_CODE) }))
  if (candidates.length === 0) return undefined
  const wanted = [normalizeLanguageCode(languages.contact), normalizeLanguageCode(languages.agent)]
    .filter((code): code is string => code !== undefined)
  const exact = (code: string) => candidates.find((c) => c.code === code)
  const sameLanguage = (code: string) =>
    candidates.find((c) => c.code !== undefined && primaryLanguage(c.code) === primaryLanguage(code))
  for (const code of wanted) {
    const found = exact(code)
    if (found !== undefined) return found.template
  }
  for (const code of wanted) {
    const found = sameLanguage(code)
    if (found !== undefined) return found.template
  }
  return (exact(DEFAULT_LANGUAGE_CODE) ?? candidates[0]).template
}

/** The SMS status a call outcome falls under: `ANSWERED` for an answered call, `UNANSWERED` for any other. */
export const smsStatusFor = (
  outcome: CallOutcome
): SmsCallStatus => (outcome === "ANSWERED" ? "ANSWERED" : "UNANSWERED")

/** The first SMS template for the status of this outcome (see `smsStatusFor`), if any. */
export const smsTemplateFor = <T extends { readonly callStatus: SmsCallStatus }>(
  templates: ReadonlyArray<T>,
  outcome: CallOutcome
): T | undefined => {
  const status = smsStatusFor(outcome)
  return templates.find((t) => t.callStatus === status)
}

// ---------------------------------------------------------------------------------------------
// Validation helpers
// ---------------------------------------------------------------------------------------------

const LANGUAGE_CODE = /^([a-z]{2,3})(?:_[A-Z]{2})?$/

/**
 * `Intl.DisplayNames` with `fallback: "none"` answers undefined for a language subtag CLDR does not
 * know. Undefined here when the runtime has no `Intl.DisplayNames`, in which case only the pattern
 * is checked.
 */
const languageNames: Intl.DisplayNames | undefined = (() => {
  try {
    return new Intl.DisplayNames(["en"], { type: "language", fallback: "none" })
  } catch {
    return undefined
  }
})()

/**
 * Whether `s` is a language tag like `en`, `fil`, `en_US`, `hi_IN`, `zh_CN`: a lowercase 2–3 letter
 * language, optionally `_` and an uppercase 2-letter region, whose language is one the runtime's
 * CLDR data names (so `xx` and `xx_YY` are refused). Only the language is checked against Intl;
 * the region only has to match the pattern.
 */
export const isLanguageCode = (s: string): boolean => {
  if (typeof s !== "string") return false
  const match = LANGUAGE_CODE.exec(s)
  if (match === null) return false
  if (languageNames === undefined) return true
  try {
    return languageNames.of(match[1]) !== undefined
  } catch {
    return false
  }
}

/** Number of Unicode code points (a lone surrogate counts 1); the unit of the 1,600-character body limit. */
export const bodyLength = (s: string): number => {
  let n = 0
  for (const _ of s) n++
  return n
}

/** Letters (with any combining marks), decimal digits and spaces. */
const SMS_CAMPAIGN_NAME = /^(?:[\p{L}\p{Nd}]\p{M}*| )+$/u

/**
 * Whether `s` is a valid SMS campaign name: 1–120 code points of Unicode letters (combining marks
 * allowed after a letter or digit, so `नमस्ते` passes), decimal digits and spaces, not only spaces.
 */
export const isSmsCampaignName = (s: string): boolean => {
  if (typeof s !== "string") return false
  const length = bodyLength(s)
  return length >= 1 && length <= 120 && s.trim() !== "" && SMS_CAMPAIGN_NAME.test(s)
}

/** Whether `s` is an alphanumeric sender id: 3–11 ASCII letters, digits and spaces, at least one a letter. */
export const isAlphanumericSenderId = (s: string): boolean =>
  typeof s === "string" && /^[A-Za-z0-9 ]{3,11}$/.test(s) && /[A-Za-z]/.test(s)
