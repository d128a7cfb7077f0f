import type { Knex } from 'knex'

/**
 * What one module tells the others happened, inside the writer's transaction: a review was published, orders were
 * written, a customer was erased, events were appended. The module that emits an event declares it by merging
 * into this interface (`declare module '../../lib/domain-events.js'`), next to the code that emits it; each module
 * that reacts subscribes in its own index.ts (its `…Reactions` function). So a rule that spans modules is read where it acts,
 * and the composition root (src/services.ts) only connects them.
 *
 * Each entry is `{ payload, answer }`: what a reaction gets, and what it may answer (most answer nothing).
 */
export interface DomainEvents {}

export type DomainEventName = keyof DomainEvents
type PayloadOf<E extends DomainEventName> = DomainEvents[E] extends { payload: infer P } ? P : never
type AnswerOf<E extends DomainEventName> = DomainEvents[E] extends { answer: infer A } ? A : void

export type Reaction<E extends DomainEventName> = (trx: Knex.Transaction, payload: PayloadOf<E>) => Promise<AnswerOf<E> | void>

export interface DomainBus {
  /** Reactions run in the order they subscribed; the answer unsubscribes (a test's reaction on a shared app). */
  on: <E extends DomainEventName>(name: E, reaction: Reaction<E>) => () => void
  /** Runs every reaction to `name`, one after the other, in `trx`; a reaction that throws rolls the writer back. */
  emit: <E extends DomainEventName>(name: E, trx: Knex.Transaction, payload: PayloadOf<E>) => Promise<Array<AnswerOf<E>>>
}

export function domainEvents (): DomainBus {
  const reactions = new Map<DomainEventName, Array<Reaction<never>>>()
  return {
    on (name, reaction) {
      const entry = reaction as Reaction<never>
      reactions.set(name, [...(reactions.get(name) ?? []), entry])
      return () => { reactions.set(name, (reactions.get(name) ?? []).filter((e) => e !== entry)) }
    },

    async emit (name, trx, payload) {
      const answers = []
      for (const reaction of reactions.get(name) ?? []) {
        const answer = await (reaction as Reaction<typeof name>)(trx, payload)
        if (answer !== undefined) answers.push(answer)
      }
      return answers as never
    }
  }
}
