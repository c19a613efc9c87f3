/**
 * The bounds the API checks, in one place with no imports: the domain's schemas are built from
 * them, and the web dashboard imports them to check a form before sending it without pulling in
 * Effect (importing a schema module took its bundle from 104 to 290 KB).
 */

/** Sign-up and API keys (characters). */
export const ACCOUNT_LIMITS = {
  email: 254,
  password: { min: 8, max: 256 },
  companyName: 200,
  apiKeyName: 100
} as const

export const CAMPAIGN_LIMITS = {
  name: { min: 1, max: 120 },
  description: { max: 2000 },
  /** Seconds a call may ring before it counts as unanswered. */
  dialTimeout: { min: 10, max: 120, default: 30 },
  maxAttempts: { min: 1, max: 10, default: 1 },
  /** Minutes between an unanswered, busy or failed attempt and the next one. */
  redialDelayMin: { min: 1, max: 10_080, default: 60 },
  maxConcurrentCalls: { min: 1, max: 100, default: 5 },
  callWindow: { defaultStart: "09:00", defaultEnd: "18:00" },
  callDays: { default: [1, 2, 3, 4, 5] as ReadonlyArray<number> },
  timezone: { default: "UTC" },
  /** Off unless asked for; when on, the US TCPA's hours unless others are given. */
  recipientCallingHours: { defaultEnabled: false, defaultStart: "08:00", defaultEnd: "21:00" }
} as const

export const MESSAGING_LIMITS = {
  chatAppTemplates: { min: 1, max: 20 },
  smsTemplates: { min: 1, max: 2 },
  smsBody: { max: 1600 },
  smsName: { max: 120 },
  chatAppName: { max: 120 },
  templateName: { max: 512 },
  bodyParameters: { max: 10, length: 1024 }
} as const

/** An agent's texts (characters) and its chat-app ids. */
export const AGENT_LIMITS = {
  name: 120,
  greetMessage: 2_000,
  agentPrompt: 32_000,
  connectionId: 128,
  phoneNumberId: 64
} as const

/** An agent's voice choices (`voice`): each bounded number as [min, max], texts as their longest. */
export const VOICE_LIMITS = {
  /** A provider's model or voice name. */
  providerText: 100,
  temperature: [0, 2],
  endpointing: { minDelayMs: [100, 5_000], maxDelayMs: [300, 10_000] },
  interruption: { minSpeechMs: [100, 2_000], minWords: [0, 10], backchannel: 40, backchannels: 50 },
  idle: { reminderAfterSeconds: [3, 120], reminders: [0, 5], text: 300 },
  maxCallSeconds: [30, 14_400],
  keypad: { interDigitTimeoutMs: [500, 15_000], maxDigits: [1, 32] },
  transfer: { numbers: 20, warmMessage: 300 },
  voicemailMessage: 500
} as const

export const CONTACT_LIMITS = {
  /** A contact's name, and a contact list's. */
  name: 200,
  perImport: 500,
  pageSize: 200,
  defaultPageSize: 25,
  dncReason: 500
} as const

export const VOICE_NUMBER_LIMITS = { label: 100 } as const

/** `kbKey`: 2 to 64 of lowercase letters, digits, `-` and `_`, starting with a letter or digit. */
export const KB_KEY_PATTERN = /^[a-z0-9][a-z0-9_\-]{1,63}$/
export const MAX_KB_NAME = 120
export const MAX_KB_DESCRIPTION = 2_000
export const MAX_TITLE = 200
/** Characters of text in one document (a text source, a fetched page, an uploaded file's text). */
export const MAX_DOCUMENT_CHARS = 1_000_000
export const MAX_FAQ_PAIRS = 500
export const MAX_FAQ_QUESTION = 1_000
export const MAX_FAQ_ANSWER = 10_000
export const MAX_URL_LENGTH = 2_048
/** One uploaded file; the limit multipart parsing enforces (413 above it). */
export const MAX_UPLOAD_BYTES = 10 * 1024 * 1024
export const MAX_UPLOAD_FILES = 10
export const MAX_QUERY_CHARS = 2_000
export const DEFAULT_TOP_K = 5
export const MAX_TOP_K = 50
/** Knowledge bases one agent answers from. */
export const MAX_AGENT_KNOWLEDGE_BASES = 10
export const UPLOAD_EXTENSIONS = [".txt", ".md", ".csv", ".html", ".pdf"] as const
