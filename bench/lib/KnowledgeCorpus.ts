/**
 * A generated knowledge-base corpus for the knowledge suite: customer-service paragraphs about
 * products of a made-up shop, from a seeded generator (the same corpus on every run), packed into
 * documents of about `chunksPerDocument` chunks each, with the exact chunks the platform makes of
 * them (`chunksOf`, the ingestion job's own chunker), and customer questions in the same wording.
 */
import { chunksOf } from "@voiceagent/runner/Knowledge/DocumentChunks"

/** mulberry32: a small seeded generator, deterministic across runs and platforms. */
const generator = (seed: number) => {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

type Random = () => number

const pick = <A>(random: Random, items: ReadonlyArray<A>): A => items[Math.floor(random() * items.length)]!

const TOPICS: ReadonlyArray<{ readonly topic: string; readonly terms: ReadonlyArray<string> }> = [
  {
    topic: "billing",
    terms: [
      "invoice",
      "direct debit",
      "credit card",
      "monthly statement",
      "VAT receipt",
      "late payment fee",
      "refund",
      "pro-rata charge"
    ]
  },
  {
    topic: "delivery",
    terms: [
      "parcel",
      "courier",
      "tracking number",
      "delivery slot",
      "customs declaration",
      "express shipping",
      "signature on delivery",
      "pick-up point"
    ]
  },
  {
    topic: "returns",
    terms: [
      "return label",
      "exchange",
      "original packaging",
      "restocking fee",
      "thirty-day window",
      "store credit",
      "faulty item",
      "collection request"
    ]
  },
  {
    topic: "warranty",
    terms: [
      "warranty claim",
      "proof of purchase",
      "repair centre",
      "replacement unit",
      "extended cover",
      "serial number",
      "accidental damage",
      "spare parts"
    ]
  },
  {
    topic: "accounts",
    terms: [
      "password reset",
      "two-factor code",
      "e-mail address",
      "login page",
      "account deletion",
      "privacy settings",
      "security question",
      "linked devices"
    ]
  },
  {
    topic: "installation",
    terms: [
      "wall bracket",
      "power adapter",
      "mounting kit",
      "installer visit",
      "firmware update",
      "pairing mode",
      "wiring diagram",
      "safety check"
    ]
  },
  {
    topic: "subscriptions",
    terms: [
      "annual plan",
      "monthly plan",
      "renewal date",
      "cancellation notice",
      "upgrade",
      "downgrade",
      "free trial",
      "loyalty discount"
    ]
  },
  {
    topic: "mobile",
    terms: [
      "SIM card",
      "eSIM profile",
      "roaming bundle",
      "data allowance",
      "PUK code",
      "number transfer",
      "5G coverage",
      "voicemail"
    ]
  },
  {
    topic: "energy",
    terms: [
      "solar panel",
      "inverter",
      "battery storage",
      "smart meter",
      "feed-in tariff",
      "peak hours",
      "heat pump",
      "energy report"
    ]
  },
  {
    topic: "appointments",
    terms: [
      "booking reference",
      "time slot",
      "reschedule",
      "waiting list",
      "reminder text",
      "no-show fee",
      "video consultation",
      "opening hours"
    ]
  },
  {
    topic: "loyalty",
    terms: [
      "reward points",
      "member tier",
      "birthday voucher",
      "points expiry",
      "partner offer",
      "gift card",
      "referral bonus",
      "cashback"
    ]
  },
  {
    topic: "insurance",
    terms: [
      "policy document",
      "excess",
      "claim form",
      "no-claims bonus",
      "cover start date",
      "named driver",
      "theft report",
      "premium"
    ]
  }
]

const BRANDS = [
  "Aster",
  "Borealis",
  "Cobalt",
  "Dune",
  "Ember",
  "Fjord",
  "Granite",
  "Helix",
  "Indigo",
  "Juniper",
  "Kestrel",
  "Lumen",
  "Meridian",
  "Nimbus",
  "Orchid",
  "Pioneer"
]
const TEAMS = ["support", "billing", "logistics", "technical", "customer care", "claims", "retention", "field service"]
const CHANNELS = [
  "the app",
  "the website",
  "our phone line",
  "live chat",
  "any store",
  "e-mail",
  "the customer portal",
  "a text message"
]
const CITIES = [
  "Leeds",
  "Bristol",
  "Glasgow",
  "Cardiff",
  "Belfast",
  "Norwich",
  "Brighton",
  "York",
  "Aberdeen",
  "Exeter",
  "Dundee",
  "Bath"
]
const DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]

const product = (random: Random) =>
  `${pick(random, BRANDS)} ${String.fromCharCode(65 + Math.floor(random() * 26))}${1 + Math.floor(random() * 98)}`

const capitalise = (s: string) => s.charAt(0).toUpperCase() + s.slice(1)

const SENTENCES: ReadonlyArray<(r: Random, terms: ReadonlyArray<string>, item: string) => string> = [
  (r, t, p) =>
    `The ${pick(r, t)} for the ${p} is handled by the ${pick(r, TEAMS)} team within ${
      2 + Math.floor(r() * 12)
    } working days.`,
  (r, t, p) =>
    `Customers with the ${p} who ask about the ${pick(r, t)} should first check the ${pick(r, t)} shown in ${
      pick(r, CHANNELS)
    }.`,
  (r, t) =>
    `${capitalise(pick(r, t))} requests received after ${
      1 + Math.floor(r() * 11)
    } pm are processed on the next working day.`,
  (r, t, p) =>
    `If the ${p} shows an error during the ${pick(r, t)}, restart it and try again before calling ${pick(r, TEAMS)}.`,
  (r, t) =>
    `Our ${pick(r, CITIES)} office answers questions about the ${pick(r, t)} from ${DAYS[Math.floor(r() * 3)]} to ${
      DAYS[3 + Math.floor(r() * 3)]
    }.`,
  (r, t) => `A ${pick(r, t)} costs ${(2 + r() * 120).toFixed(2)} pounds unless the customer holds a ${pick(r, t)}.`,
  (r, t, p) => `Owners of the ${p} can change the ${pick(r, t)} themselves through ${pick(r, CHANNELS)} at any time.`,
  (r, t) =>
    `We never ask for a ${pick(r, t)} by ${pick(r, CHANNELS)}; report such messages to the ${pick(r, TEAMS)} team.`,
  (r, t, p) =>
    `Since the ${1 + Math.floor(r() * 28)} ${
      pick(r, ["March", "June", "September", "November"])
    } update the ${p} supports the ${pick(r, t)} as well.`,
  (r, t) => `About ${5 + Math.floor(r() * 90)} percent of ${pick(r, t)} questions are solved on the first contact.`,
  (r, t, p) =>
    `Keep the ${pick(r, t)} of your ${p} at hand, because the agent will ask for it before changing the ${pick(r, t)}.`,
  (r, t) =>
    `The ${pick(r, t)} and the ${pick(r, t)} are explained step by step in the ${pick(r, CITIES)} help centre guide.`
]

/** One paragraph: 3 to 6 sentences about one topic and one product. */
const paragraph = (random: Random) => {
  const { terms } = pick(random, TOPICS)
  const item = product(random)
  const n = 3 + Math.floor(random() * 4)
  return Array.from({ length: n }, () => pick(random, SENTENCES)(random, terms, item)).join(" ")
}

const QUESTIONS: ReadonlyArray<(r: Random, terms: ReadonlyArray<string>, item: string) => string> = [
  (r, t, p) => `How long does the ${pick(r, t)} for the ${p} take?`,
  (r, t) => `Who handles the ${pick(r, t)}?`,
  (r, t, p) => `Can I change the ${pick(r, t)} of my ${p} myself?`,
  (r, t) => `How much does a ${pick(r, t)} cost?`,
  (r, t, p) => `The ${p} shows an error during the ${pick(r, t)}, what should I do?`,
  (r, t) => `When is the office open for questions about the ${pick(r, t)}?`,
  (r, t) => `Where can I read about the ${pick(r, t)} step by step?`
]

export interface CorpusDocument {
  readonly title: string
  readonly text: string
  /** The chunks the platform makes of it, in order. */
  readonly chunks: ReadonlyArray<string>
}

/**
 * A paragraph is about 420 characters; a chunk (at most 1,000
 * characters with the overlap) packs one or two: about 1.55 a chunk.
 */
const PARAGRAPHS_PER_CHUNK = 1.2

/**
 * Documents holding at least `totalChunks` chunks together, each about `chunksPerDocument` chunks
 * (the last one what is left); the same for the same arguments.
 */
export const corpus = (totalChunks: number, chunksPerDocument = 250, seed = 42): ReadonlyArray<CorpusDocument> => {
  const random = generator(seed)
  const documents: Array<CorpusDocument> = []
  let chunks = 0
  while (chunks < totalChunks) {
    const want = Math.min(chunksPerDocument, totalChunks - chunks)
    const paragraphs: Array<string> = []
    let made: ReadonlyArray<string> = []
    // add paragraphs until the document chunks into `want` (an underestimate first, then a few at a time;
    // it may end a chunk or so above `want`, and the exact chunks are what counts)
    while (made.length < want) {
      const missing = want - made.length
      for (let i = 0; i < Math.max(1, Math.floor(missing * PARAGRAPHS_PER_CHUNK * 0.9)); i++) {
        paragraphs.push(paragraph(random))
      }
      made = chunksOf({ sourceType: "TEXT", content: paragraphs.join("\n\n"), faqs: null })
    }
    const text = paragraphs.join("\n\n")
    documents.push({ title: `Customer service handbook, part ${documents.length + 1}`, text, chunks: made })
    chunks += made.length
  }
  return documents
}

/** `n` distinct customer questions in the corpus's wording (seed 7). */
export const questions = (n: number): ReadonlyArray<string> => {
  const random = generator(7)
  const out = new Set<string>()
  for (let tries = 0; out.size < n && tries < n * 100; tries++) {
    const { terms } = pick(random, TOPICS)
    out.add(pick(random, QUESTIONS)(random, terms, product(random)))
  }
  return [...out]
}
