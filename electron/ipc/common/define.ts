/**
 * How a contract is written: methods (request/response, each with an input and an output schema) and
 * events (host-to-client streams, each with a payload schema). Types are inferred from the schemas and
 * never written twice.
 */
import type { z } from 'zod';

export interface MethodSpec<I extends z.ZodType = z.ZodType, O extends z.ZodType = z.ZodType> {
  readonly input: I;
  readonly output: O;
  /** One line for humans: shown by `t1lab` help and in the docs. */
  readonly summary: string;
}

export interface Contract {
  readonly methods: Readonly<Record<string, MethodSpec>>;
  readonly events: Readonly<Record<string, z.ZodType>>;
}

export function method<I extends z.ZodType, O extends z.ZodType>(
  input: I,
  output: O,
  summary: string,
): MethodSpec<I, O> {
  return { input, output, summary };
}

export function defineContract<const C extends Contract>(contract: C): C {
  return contract;
}

export type MethodName<C extends Contract> = keyof C['methods'] & string;
export type EventName<C extends Contract> = keyof C['events'] & string;
/** What a caller passes (before defaults are applied). */
export type MethodInput<C extends Contract, M extends MethodName<C>> = z.input<C['methods'][M]['input']>;
/** What a handler receives (after parsing and defaults). */
export type ParsedInput<C extends Contract, M extends MethodName<C>> = z.output<C['methods'][M]['input']>;
export type MethodOutput<C extends Contract, M extends MethodName<C>> = z.output<C['methods'][M]['output']>;
export type EventPayload<C extends Contract, E extends EventName<C>> = z.output<C['events'][E]>;

/** Merge several domain contracts into one; a name defined twice is a programming error. */
export function mergeContracts<const Cs extends readonly Contract[]>(...parts: Cs): MergedContract<Cs> {
  const methods: Record<string, MethodSpec> = {};
  const events: Record<string, z.ZodType> = {};
  for (const part of parts) {
    for (const [name, spec] of Object.entries(part.methods)) {
      if (name in methods) throw new Error(`contract method '${name}' is defined twice`);
      methods[name] = spec;
    }
    for (const [name, schema] of Object.entries(part.events)) {
      if (name in events) throw new Error(`contract event '${name}' is defined twice`);
      events[name] = schema;
    }
  }
  return { methods, events } as MergedContract<Cs>;
}

/** The contract of several parts; an intersection of their method and event maps. */
export type MergedContract<Cs extends readonly Contract[]> = Cs extends readonly [
  infer H extends Contract,
  ...infer R extends readonly Contract[],
]
  ? { methods: H['methods'] & MergedContract<R>['methods']; events: H['events'] & MergedContract<R>['events'] }
  : { methods: Record<never, MethodSpec>; events: Record<never, z.ZodType> };
