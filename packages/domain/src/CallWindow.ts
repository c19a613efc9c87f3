/**
 * Call windows of a voice campaign: a dialer may only place calls inside an allowed local-time
 * window (`start` inclusive, `end` exclusive) on allowed ISO weekdays, in the campaign's IANA
 * timezone. Pure functions over epoch milliseconds; the timezone arithmetic uses the built-in
 * `Intl.DateTimeFormat`, so it follows whatever tz database the runtime ships.
 *
 * Rule: a window is open at instant `t` when the local weekday of `t` (in the window's timezone)
 * is in `days` and the local time of day of `t` is `>= start` and `< end`. Everything else
 * (`nextOpening`, `closesAt`) is derived from that rule, so across DST changes the answers always
 * agree with `isOpen`.
 *
 * A window that cannot be interpreted (an unknown timezone, a malformed `start`/`end`,
 * `end <= start`, or no weekday in 1..7 in `days`) is never open: `isOpen` is false and
 * `nextOpening`/`closesAt` are undefined. That is the safe reading for a dialer.
 */

/** The call-window rules of a campaign. */
export interface CallWindow {
  /** IANA timezone name, e.g. `"America/New_York"`. */
  readonly timezone: string
  /** `"HH:MM"`, 24-hour local time, inclusive. */
  readonly start: string
  /** `"HH:MM"`, 24-hour local time, exclusive; must be later than `start` (same-day windows only). */
  readonly end: string
  /** ISO weekday numbers 1..7, Monday = 1, Sunday = 7. Other values are ignored. */
  readonly days: ReadonlyArray<number>
}

const MINUTE = 60_000
const DAY = 86_400_000
/** How many local days after the current one `nextOpening` looks at. */
const SEARCH_DAYS = 8
/** Probe step when looking for the next UTC-offset change; offsets never change twice within it in practice. */
const PROBE = 6 * 3_600_000

const formatters = new Map<string, Intl.DateTimeFormat>()

/**
 * The cached formatter for a timezone, or undefined when Intl does not accept it. Constructing a
 * `DateTimeFormat` is expensive, so one per (valid) timezone string is kept for the process.
 */
const formatterFor = (timezone: string): Intl.DateTimeFormat | undefined => {
  const cached = formatters.get(timezone)
  if (cached !== undefined) return cached
  if (typeof timezone !== "string" || timezone === "") return undefined
  let formatter: Intl.DateTimeFormat
  try {
    formatter = new Intl.DateTimeFormat("en-US", {
      timeZone: timezone,
      // h23, not hour12: false, which renders midnight as "24" in some runtimes.
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
      numberingSystem: "latn"
    })
  } catch {
    return undefined
  }
  formatters.set(timezone, formatter)
  return formatter
}

const requireFormatter = (timezone: string): Intl.DateTimeFormat => {
  const formatter = formatterFor(timezone)
  if (formatter === undefined) throw new RangeError(`Invalid time zone: ${JSON.stringify(timezone)}`)
  return formatter
}

/**
 * Whether `tz` is a timezone the runtime's Intl accepts: IANA names such as `"Asia/Kolkata"`,
 * `"America/New_York"` or `"UTC"` (and their aliases). False for `""`, `"Mars/Base"`,
 * `"EST5EDT-garbage"` and non-strings.
 */
export const isValidTimezone = (tz: string): boolean => formatterFor(tz) !== undefined

/**
 * Minutes after midnight for `"00:00"` through `"23:59"`: exactly two digits each, 24-hour.
 * Undefined for anything else (`"24:00"`, `"9:00"`, `"12:60"`, `" 09:00"`, ...).
 */
export const parseHHMM = (s: string): number | undefined => {
  const match = typeof s === "string" ? /^([01]\d|2[0-3]):([0-5]\d)$/.exec(s) : null
  return match === null ? undefined : Number(match[1]) * 60 + Number(match[2])
}

/** Epoch ms of a proleptic-Gregorian UTC date-time; unlike `Date.UTC`, years 0..99 are not shifted to 19xx. */
const utcMillis = (year: number, month: number, day: number, hour: number, minute: number, second: number) => {
  const date = new Date(0)
  date.setUTCFullYear(year, month - 1, day)
  return date.setUTCHours(hour, minute, second, 0)
}

/** ISO weekday (Monday = 1) of the day `epochDay` days after 1970-01-01, a Thursday. */
const isoWeekdayOfEpochDay = (epochDay: number) => ((((epochDay + 3) % 7) + 7) % 7) + 1

const floorDiv = (a: number, b: number) => Math.floor(a / b)

/**
 * The wall-clock date and time of an instant in a timezone: `month` 1..12, `day` 1..31, `hour`
 * 0..23, `isoWeekday` 1..7 (Monday = 1). Milliseconds are dropped. Throws a RangeError for a
 * timezone Intl does not accept or a non-finite instant.
 */
export const localParts = (
  timezone: string,
  epochMillis: number
): {
  readonly year: number
  readonly month: number
  readonly day: number
  readonly hour: number
  readonly minute: number
  readonly second: number
  readonly isoWeekday: number
} => {
  let year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0
  for (const part of requireFormatter(timezone).formatToParts(epochMillis)) {
    switch (part.type) {
      case "year":
        year = Number(part.value)
        break
      case "month":
        month = Number(part.value)
        break
      case "day":
        day = Number(part.value)
        break
      case "hour":
        // Defensive: h23 should never yield "24", but older engines did for midnight.
        hour = Number(part.value) % 24
        break
      case "minute":
        minute = Number(part.value)
        break
      case "second":
        second = Number(part.value)
        break
    }
  }
  const isoWeekday = isoWeekdayOfEpochDay(floorDiv(utcMillis(year, month, day, 0, 0, 0), DAY))
  return { year, month, day, hour, minute, second, isoWeekday }
}

/** The zone's UTC offset in ms at an instant (local wall clock minus UTC), e.g. -5h for EST. */
const offsetAt = (timezone: string, epochMillis: number): number => {
  const p = localParts(timezone, epochMillis)
  const wholeSecond = epochMillis - (((epochMillis % 1000) + 1000) % 1000)
  return utcMillis(p.year, p.month, p.day, p.hour, p.minute, p.second) - wholeSecond
}

/**
 * The instant at which the wall clock in `timezone` shows the given local date and time (seconds
 * zero). Fields out of range roll over as with `Date.UTC` (e.g. day 32 is the next month's 1st).
 *
 * - An ambiguous local time (in the fall-back overlap, e.g. 01:30 on the US DST end day, which
 *   happens once in daylight and once in standard time) gives the earlier instant.
 * - A local time that does not exist (in the spring-forward gap, e.g. 02:30 on the US DST start
 *   day) is read with the offset in force before the gap, which lands the same distance past the
 *   gap: 02:30 → 03:30 EDT. (This is the "compatible" rule of Temporal and java.time.)
 *
 * The offset is found by guess-and-correct: start from the offsets a day either side, take
 * `local - offset`, re-read the zone's offset at that instant, and repeat until it is stable.
 * Each stable answer is a real instant with that wall-clock reading; none means a gap.
 * Throws a RangeError for a timezone Intl does not accept.
 */
export const zonedToEpoch = (
  timezone: string,
  local: {
    readonly year: number
    readonly month: number
    readonly day: number
    readonly hour: number
    readonly minute: number
  }
): number => {
  const wall = utcMillis(local.year, local.month, local.day, local.hour, local.minute, 0)
  const before = offsetAt(timezone, wall - DAY)
  const after = offsetAt(timezone, wall + DAY)
  const settle = (guess: number): number | undefined => {
    let offset = guess
    for (let i = 0; i < 4; i++) {
      const instant = wall - offset
      const actual = offsetAt(timezone, instant)
      if (actual === offset) return instant
      offset = actual
    }
    return undefined
  }
  const fromBefore = settle(before)
  const fromAfter = before === after ? fromBefore : settle(after)
  if (fromBefore !== undefined && fromAfter !== undefined) return Math.min(fromBefore, fromAfter)
  return fromBefore ?? fromAfter ?? wall - before
}

interface Rules {
  readonly timezone: string
  readonly startMs: number
  readonly endMs: number
  readonly days: ReadonlySet<number>
}

/** The window in milliseconds, or undefined when it can never be open. */
const compile = (w: CallWindow): Rules | undefined => {
  const start = parseHHMM(w.start)
  const end = parseHHMM(w.end)
  if (start === undefined || end === undefined || end <= start || !isValidTimezone(w.timezone)) return undefined
  const days = new Set(w.days.filter((d) => Number.isInteger(d) && d >= 1 && d <= 7))
  if (days.size === 0) return undefined
  return { timezone: w.timezone, startMs: start * MINUTE, endMs: end * MINUTE, days }
}

/** Whether a "naive local" instant (wall-clock ms, as if UTC) is inside the window. */
const openAtWall = (rules: Rules, wall: number) => {
  const epochDay = floorDiv(wall, DAY)
  const timeOfDay = wall - epochDay * DAY
  return rules.days.has(isoWeekdayOfEpochDay(epochDay)) && timeOfDay >= rules.startMs && timeOfDay < rules.endMs
}

/**
 * Whether calls may be placed at `epochMillis`: the local weekday is in `days` and the local time
 * of day is in `[start, end)`. False for a window that cannot be interpreted.
 */
export const isOpen = (w: CallWindow, epochMillis: number): boolean => {
  const rules = compile(w)
  return rules !== undefined && openAtWall(rules, epochMillis + offsetAt(rules.timezone, epochMillis))
}

/**
 * The first instant in `(from, until]` at which the zone's offset differs from `offset`, found by
 * probing every few hours and bisecting to the millisecond; undefined when there is none.
 */
const nextOffsetChange = (timezone: string, from: number, offset: number, until: number): number | undefined => {
  let low = from
  while (low < until) {
    const probe = Math.min(low + PROBE, until)
    if (offsetAt(timezone, probe) !== offset) {
      let high = probe
      while (high - low > 1) {
        const mid = low + Math.floor((high - low) / 2)
        if (offsetAt(timezone, mid) === offset) low = mid
        else high = mid
      }
      return high
    }
    low = probe
  }
  return undefined
}

/**
 * The first instant `>= epochMillis` at which `isOpen` equals `wantOpen`, looking no further than
 * the end of the local day `lastEpochDay`. Between offset changes local time runs in step with UTC,
 * so within each such stretch the answer is plain wall-clock arithmetic; at an offset change the
 * search restarts with the new offset (the wall clock may have jumped into or out of the window).
 */
const nextEdge = (rules: Rules, epochMillis: number, wantOpen: boolean, lastEpochDay: number): number | undefined => {
  let from = epochMillis
  // Each stretch ends at an offset change; a handful per 9 days is already pathological.
  for (let stretch = 0; stretch < 16; stretch++) {
    const offset = offsetAt(rules.timezone, from)
    const wall = from + offset
    const epochDay = floorDiv(wall, DAY)
    let target: number | undefined
    if (openAtWall(rules, wall) === wantOpen) {
      target = wall
    } else if (!wantOpen) {
      target = epochDay * DAY + rules.endMs
    } else {
      for (let day = epochDay; day <= lastEpochDay && target === undefined; day++) {
        const opening = day * DAY + rules.startMs
        if (opening >= wall && rules.days.has(isoWeekdayOfEpochDay(day))) target = opening
      }
    }
    // With no target here, an offset change before the end of the horizon may still jump into the window.
    const until = (target ?? (lastEpochDay + 1) * DAY) - offset
    if (until <= from) return from
    const change = nextOffsetChange(rules.timezone, from, offset, until)
    if (change === undefined) return target === undefined ? undefined : until
    from = change
  }
  return undefined
}

/**
 * The instant at which the window is next open: `epochMillis` itself when it is open now,
 * otherwise the first later instant at which `isOpen` becomes true. Usually that is the local
 * `start` on the next allowed day, converted with that day's UTC offset (09:00 America/New_York is
 * 14:00Z in winter, 13:00Z in summer). When `start` falls in a spring-forward gap the window opens
 * at the first instant after the gap, where the wall clock is already past `start` (a 02:30 window
 * on the US DST start day opens at 03:00 EDT); when a fall-back repeats local times the window can
 * open a second time that day.
 *
 * Looks at most 8 local days ahead; undefined only when the window never opens (`days` empty, or
 * the window cannot be interpreted).
 */
export const nextOpening = (w: CallWindow, epochMillis: number): number | undefined => {
  const rules = compile(w)
  if (rules === undefined) return undefined
  const today = floorDiv(epochMillis + offsetAt(rules.timezone, epochMillis), DAY)
  return nextEdge(rules, epochMillis, true, today + SEARCH_DAYS)
}

/**
 * When the window is open at `epochMillis`: the instant at which this opening ends, normally the
 * local `end` that day (or earlier, if a DST change moves the wall clock out of the window first).
 * Undefined when the window is closed at `epochMillis`.
 */
export const closesAt = (w: CallWindow, epochMillis: number): number | undefined => {
  const rules = compile(w)
  if (rules === undefined) return undefined
  const wall = epochMillis + offsetAt(rules.timezone, epochMillis)
  if (!openAtWall(rules, wall)) return undefined
  return nextEdge(rules, epochMillis, false, floorDiv(wall, DAY) + 1)
}

// ---------------------------------------------------------------------------
// Several windows at once: open when every one is
// ---------------------------------------------------------------------------

/** How far ahead `nextOpeningOfAll` looks: a week and a day, like `nextOpening`. */
const ALL_HORIZON = SEARCH_DAYS * DAY

/** Whether every window is open at `epochMillis`; true for no windows. */
export const isOpenAll = (windows: ReadonlyArray<CallWindow>, epochMillis: number): boolean =>
  windows.every((w) => isOpen(w, epochMillis))

/**
 * The first instant `>= epochMillis` at which every window is open, looking at most 8 days ahead;
 * undefined when the windows never overlap within that (or one of them never opens).
 *
 * Each step moves to the next opening of a window that is closed: no instant skipped can have
 * every window open, so the first instant reached with all of them open is the earliest.
 */
export const nextOpeningOfAll = (windows: ReadonlyArray<CallWindow>, epochMillis: number): number | undefined => {
  const limit = epochMillis + ALL_HORIZON
  let at = epochMillis
  // each step lands on a distinct opening of one window: a few per window and day at most
  for (let step = 0; step < (windows.length + 1) * SEARCH_DAYS * 4; step++) {
    const closed = windows.find((w) => !isOpen(w, at))
    if (closed === undefined) return at
    const opens = nextOpening(closed, at)
    if (opens === undefined || opens > limit) return undefined
    at = opens
  }
  return undefined
}

/** When every window is open at `epochMillis`: the instant the first of them closes. */
export const closesAtOfAll = (windows: ReadonlyArray<CallWindow>, epochMillis: number): number | undefined => {
  let earliest: number | undefined
  for (const w of windows) {
    const closes = closesAt(w, epochMillis)
    if (closes === undefined) return undefined
    earliest = earliest === undefined ? closes : Math.min(earliest, closes)
  }
  return earliest
}
