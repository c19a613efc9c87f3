/**
 * Recipient-local calling hours: when a contact may be called, in the contact's own time zone,
 * derived from the phone number (the US TCPA allows 08:00 to 21:00 at the called party's location).
 *
 * Zones come from Google libphonenumber's time-zone table (`PhoneTimeZonesData`), read as its
 * `PhoneNumberToTimeZonesMapper.getTimeZonesForNumber` reads it:
 *
 * - a fixed-line number (or, where the two cannot be told apart as in North America, a fixed-line or
 *   mobile one; or a mobile one in Mexico, Argentina, Brazil, Indonesia or China, where mobiles are
 *   geographic) takes the zones of the longest prefix of its digits in the table: the area code in
 *   North America, the exchange where an area code spans zones, the country where the table has
 *   nothing finer;
 * - any other valid number (toll-free, premium, VoIP, personal, most mobiles) takes its country's
 *   zones: every zone the country spans;
 * - an invalid number, or one the table has nothing for, has no known zone.
 *
 * A number that may be in several zones is read strictly: it may be called only when the hours
 * are open in every one of them (the intersection). A number with no known zone, or whose zones'
 * hours never overlap (all of North America, from Guam to Newfoundland; all of Russia), is never
 * open. An instant is inside the hours when its local time of day in the zone is `>= start` and
 * `< end`, on any day; the zone arithmetic is `CallWindow`'s, so DST changes are followed.
 */
import { parsePhoneNumberFromString } from "libphonenumber-js/max"
import * as CallWindow from "./CallWindow.js"
import { PHONE_TIME_ZONE_NAMES, PHONE_TIME_ZONE_PREFIXES } from "./PhoneTimeZonesData.js"

/** Local hours a contact may be called in: `"HH:MM"`, start inclusive, end exclusive, same day. */
export interface LocalHours {
  readonly start: string
  readonly end: string
}

/** The US TCPA's hours: no call before 08:00 or at or after 21:00 at the called party's location. */
export const TCPA_HOURS: LocalHours = { start: "08:00", end: "21:00" }

const EVERY_DAY: ReadonlyArray<number> = [1, 2, 3, 4, 5, 6, 7]

/** Country calling codes whose mobile numbers are geographic (libphonenumber's `GEO_MOBILE_COUNTRIES`). */
const GEOGRAPHIC_MOBILES = new Set(["52", "54", "55", "62", "86"])

let table: { readonly byPrefix: ReadonlyMap<string, ReadonlyArray<string>>; readonly longest: number } | undefined

const prefixTable = () => {
  if (table !== undefined) return table
  const byPrefix = new Map<string, ReadonlyArray<string>>()
  let longest = 0
  for (const line of PHONE_TIME_ZONE_PREFIXES.split("\n")) {
    if (line === "") continue
    const [prefix = "", positions = ""] = line.split(" ")
    byPrefix.set(prefix, positions.split(",").map((p) => PHONE_TIME_ZONE_NAMES[Number(p)]!))
    longest = Math.max(longest, prefix.length)
  }
  table = { byPrefix, longest }
  return table
}

/** The zones of the longest prefix of `digits` in the table; none when no prefix is there. */
const lookup = (digits: string): ReadonlyArray<string> => {
  const { byPrefix, longest } = prefixTable()
  for (let length = Math.min(digits.length, longest); length > 0; length--) {
    const zones = byPrefix.get(digits.slice(0, length))
    if (zones !== undefined) return zones
  }
  return []
}

/**
 * The IANA zones an E.164 number may be in, as described above: one for most numbers, several when
 * its area or country spans zones, none when it is invalid or unknown to the table.
 */
export const timeZonesOf = (phone: string): ReadonlyArray<string> => {
  const parsed = parsePhoneNumberFromString(phone)
  if (parsed === undefined || !parsed.isValid()) return []
  const type = parsed.getType()
  if (type === undefined) return []
  const geographic = type === "FIXED_LINE" || type === "FIXED_LINE_OR_MOBILE" ||
    (type === "MOBILE" && GEOGRAPHIC_MOBILES.has(parsed.countryCallingCode))
  return lookup(geographic ? parsed.number.slice(1) : parsed.countryCallingCode)
}

/** The hours as one call window per zone, every day of the week. */
export const windowsFor = (
  zones: ReadonlyArray<string>,
  hours: LocalHours = TCPA_HOURS
): ReadonlyArray<CallWindow.CallWindow> =>
  zones.map((timezone) => ({ timezone, start: hours.start, end: hours.end, days: EVERY_DAY }))

export interface RecipientWindow {
  /** The zones the number may be in; empty when none is known (then it is never open). */
  readonly zones: ReadonlyArray<string>
  /** Whether the hours are open in every zone (and every window of `within`) at the instant asked about. */
  readonly open: boolean
  /**
   * The instant asked about when open; otherwise the next instant at which it is, at most 8 days
   * ahead. Undefined when it never opens in that time.
   */
  readonly opensAt: number | undefined
  /** When open: the instant this opening ends (the first zone, or window, to close). */
  readonly closesAt: number | undefined
}

/**
 * Whether `phone` may be called at `at` (epoch ms), and if not, when it next may. `within` adds
 * windows that must be open too (a campaign's own call window), so `opensAt` is the first instant
 * at which the contact's hours and those windows overlap.
 */
export const recipientWindow = (
  phone: string,
  at: number,
  options: { readonly hours?: LocalHours; readonly within?: ReadonlyArray<CallWindow.CallWindow> } = {}
): RecipientWindow => {
  const zones = timeZonesOf(phone)
  if (zones.length === 0) return { zones, open: false, opensAt: undefined, closesAt: undefined }
  const windows = [...windowsFor(zones, options.hours), ...(options.within ?? [])]
  const opensAt = CallWindow.nextOpeningOfAll(windows, at)
  const open = opensAt === at
  return { zones, open, opensAt, closesAt: open ? CallWindow.closesAtOfAll(windows, at) : undefined }
}
