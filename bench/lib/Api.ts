/** What the suites that drive the platform over HTTP share: a JSON call, a pause, numbers to dial. */
import { isValidE164 } from "@voiceagent/domain/Phone"
import { behaviourOf } from "@voiceagent/runner/Telephony/SimulatedCarrier"

/** One authenticated JSON request; anything but a 2xx throws with the status and (the start of) the body. */
export const request = async (method: string, url: string, token: string, body?: unknown) => {
  const response = await fetch(url, {
    method,
    headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  if (!response.ok) throw new Error(`${method} ${url}: ${response.status} ${(await response.text()).slice(0, 500)}`)
  return response.json() as Promise<any>
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const AREA_CODES = ["646", "212", "917", "718", "347", "929", "332", "415"]

/**
 * `n` distinct valid E.164 numbers (+1 <area> <exchange 200–999> <digit> <talk, 3 digits>) that the
 * simulated carrier answers after its ring time and talks on for `talkSeconds` (0–999): the
 * simulator's own rule decides, so numbers it treats otherwise (…9001 busy, …) are left out.
 */
export const answeredNumbers = (n: number, talkSeconds: number): Array<string> => {
  const talk = String(talkSeconds).padStart(3, "0")
  const numbers: Array<string> = []
  for (const area of AREA_CODES) {
    for (let exchange = 200; exchange <= 999; exchange++) {
      for (let digit = 0; digit <= 9; digit++) {
        const number = `+1${area}${exchange}${digit}${talk}`
        const behaviour = behaviourOf(number)
        if (!isValidE164(number) || behaviour._tag !== "Answered" || behaviour.talkSeconds !== talkSeconds) continue
        numbers.push(number)
        if (numbers.length === n) return numbers
      }
    }
  }
  throw new Error(`only ${numbers.length} numbers available, ${n} asked for`)
}
