/**
 * `[ppo]`: the PPO stage (rollouts in real sandboxes, the reward, advantages, the clipped update, R3, TIS,
 * TITO, asynchrony). `train.steps` counts PPO steps (one rollout batch + its update each); `data.path` is
 * the train task suite (a folder of tasks or a pack). Every switch the ablations need is here and is
 * recorded in run.json with the rest of the config.
 */
import { z } from 'zod';

const posInt = z.number().int().positive();
const nonNegInt = z.number().int().nonnegative();

export const PpoSection = z
  .strictObject({
    /** Tasks sampled per step, and episodes per task (the group of a group-relative advantage). */
    tasks_per_step: posInt.default(4),
    group_size: posInt.default(4),
    /** Task sampling: uniform over tasks, or uniform over categories then tasks. */
    sampling: z.enum(['uniform', 'stratified']).default('uniform'),
    /** Sandboxes (episodes) running at once; the policy worker decodes the active ones in one batch. */
    concurrency: posInt.default(4),
    /** Harness limits per episode. */
    max_turns: posInt.default(8),
    agent_timeout_sec: z.number().positive().optional(),
    /** Completion tokens per turn (default: the policy's own budget). */
    max_tokens: posInt.optional(),
    temperature: z.number().gt(0).max(10).default(1),
    /** Which verifier reward trains: `dense` (passed assertions), `fraction` or `binary`; optional normalisation. */
    reward: z.enum(['dense', 'fraction', 'binary']).default('dense'),
    reward_norm: z.enum(['none', 'batch', 'group']).default('none'),
    /** `gae` (critic) or `group` (GRPO-style, no critic). */
    advantage: z.enum(['gae', 'group']).default('gae'),
    /**
     * Group advantages are the reward minus the group's mean, then divided by the group's std (`group`, GRPO:
     * a dense group whose episodes differ by one assertion trains as hard as one that differs by success), by
     * one std over the batch's moving episodes (`batch`: groups keep the proportions of their reward
     * differences, the update its size), or not at all (`none`, Dr. GRPO: the update scales with the reward).
     */
    group_scale: z.enum(['group', 'batch', 'none']).default('group'),
    gamma: z.number().min(0).max(1).default(1),
    lambda: z.number().min(0).max(1).default(1),
    /**
     * Whiten GAE advantages over the batch's loss tokens. Group advantages are never whitened: they are
     * relative to their own group already (`group_scale`), and whitening over tokens would reweight groups
     * by their episodes' lengths.
     */
    normalize_advantages: z.boolean().default(true),
    /**
     * Groups whose episodes all got the same reward carry no policy signal: `skip` gives their tokens a zero
     * advantage (the critic still learns from them) and whitens over the other groups only; `train` keeps them,
     * and whitening then turns the critic's error into full-size advantages (the policy drifts on noise).
     */
    flat_groups: z.enum(['skip', 'train']).default('skip'),
    /** Passes over the batch, and minibatches (optimizer steps) per pass. */
    epochs: posInt.default(2),
    minibatches: posInt.default(2),
    clip_low: z.number().min(0).max(1).default(0.2),
    clip_high: z.number().min(0).max(10).default(0.28),
    /**
     * Value targets: `running` (the value head predicts returns standardised by a running mean and std of the
     * batch returns, so the value loss, its gradient and `vf_clip` do not grow with the reward's scale) or
     * `off` (raw returns: the value loss grows with the square of the reward scale).
     */
    value_norm: z.enum(['running', 'off']).default('running'),
    /** Value clipping: |V - V_old| <= vf_clip, in the value head's units (standardised with `value_norm`). */
    vf_clip: z.number().positive().default(0.2),
    vf_coef: z.number().min(0).default(0.5),
    ent_coef: z.number().min(0).default(0),
    /** KL to the reference policy (the initial checkpoint), k3 estimator; 0: off. */
    kl_coef: z.number().min(0).default(0),
    /** Truncated importance sampling: weight min(exp(logp_trainer_old - logp_sampler), tis_cap). */
    tis: z.enum(['on', 'off']).default('on'),
    tis_cap: z.number().min(1).default(2),
    /** Rollout routing replay on every token, and exact token-in/token-out. */
    r3: z.enum(['on', 'off']).default('on'),
    tito: z.enum(['exact', 'retokenize']).default('exact'),
    /** Steps that train only the value head on the initial policy's rollouts before the policy moves. */
    critic_warmup_steps: nonNegInt.default(0),
    /** Rollouts of step t+1 run while step t trains (policy lag at most `max_staleness` versions). */
    async: z.boolean().default(true),
    max_staleness: nonNegInt.default(1),
    /** Over-sampling: start N (1 + oversample) episodes, train on the first N, abort the rest. */
    oversample: z.number().min(0).max(4).default(0),
    /**
     * Dynamic sampling (DAPO): 0 is off; N draws tasks (a group each) until `tasks_per_step` groups disagree on
     * the training reward, trying at most N tasks a step, and trains on the groups that disagree only.
     */
    dynamic_max_tasks: nonNegInt.default(0),
    /** Seconds the remaining episodes get after the first N finished before they are aborted. */
    abort_grace_sec: z.number().min(0).default(0),
    /** Hard wall-clock limit per episode (set-up, agent, verifier). */
    episode_deadline_sec: z.number().positive().default(600),
    /** Measure the train-inference gap with free routing too (one extra scoring pass per step). */
    measure_free_gap: z.boolean().default(true),
    /**
     * Engine hosts (`t1lab hosts list`) that run the container tasks' episodes, each in a free slot, as
     * `eval --hosts` places them: a list of names, or "all" (every enabled host). Absent: this machine. Tasks
     * that need no image stay in bubblewrap here; an episode no host could run is not trained on.
     */
    hosts: z.union([z.literal('all'), z.array(z.string().min(1)).min(1)]).optional(),
  })
  .superRefine((p, ctx) => {
    // A group of one episode has no baseline: its group advantage is 0, so nothing would ever train.
    if (p.advantage === 'group' && p.group_size < 2) {
      ctx.addIssue({
        code: 'custom',
        path: ['group_size'],
        message: `${p.group_size} with advantage = "group" gives every episode a zero advantage (a group of one has no baseline): use group_size >= 2, or advantage = "gae"`,
      });
    }
    if (p.dynamic_max_tasks > 0 && p.dynamic_max_tasks < p.tasks_per_step) {
      ctx.addIssue({
        code: 'custom',
        path: ['dynamic_max_tasks'],
        message: `${p.dynamic_max_tasks} is below tasks_per_step (${p.tasks_per_step}): dynamic sampling tries at least tasks_per_step tasks a step; use 0 (off) or >= ${p.tasks_per_step}`,
      });
    }
    if (p.dynamic_max_tasks > 0 && p.oversample > 0) {
      ctx.addIssue({
        code: 'custom',
        path: ['dynamic_max_tasks'],
        message: `dynamic sampling judges whole groups, and oversample = ${p.oversample} aborts episodes mid-group: set oversample = 0 or dynamic_max_tasks = 0`,
      });
    }
    if (p.dynamic_max_tasks > 0 && p.group_size < 2) {
      ctx.addIssue({
        code: 'custom',
        path: ['dynamic_max_tasks'],
        message: `dynamic sampling needs groups that can disagree: group_size ${p.group_size} has one episode per task`,
      });
    }
  });
export type PpoSection = z.infer<typeof PpoSection>;
