/**
 * `t1lab train init-config --stage lm|sft|ppo [--preset nano|micro]`: a complete, commented run config
 * with every key at its default (the preset picks sizes that fit the model and this machine). It parses
 * back to the same values (tested).
 */
import type { Stage } from './run-config';

export interface DefaultConfigOptions {
  stage: Stage;
  preset: 'nano' | 'micro';
}

/**
 * Per-preset sizes: nano trains in minutes on 2 CPU cores; micro wants more. SFT batches are smaller than
 * LM ones (a sample is a whole episode, 400-1,500 tokens). PPO's rollout budget is the nano reproduction's
 * evaluation budget: 4 tasks x 8 episodes of at most 6 turns x 576 tokens (the longest oracle call of the
 * nano curriculum is 528 tokens; 96 cut a fifth of them), 60 s of agent time: a step is 32 bounded
 * episodes.
 */
const SIZES = {
  // nano SFT and PPO as measured (docs/guide/recipe-learning.md): SFT at 2e-3; PPO 4 tasks x 8 episodes per
  // step sampled at 0.7 with group advantages and a constant 2e-5 (2e-4 and 1e-4 undid the warm start in 8
  // steps); groups of 8 on a probe's pool are rarely flat.
  nano: {
    lr: 1e-3,
    sftLr: 2e-3,
    ppoLr: 2e-5,
    seqLen: 256,
    batch: 16,
    micro: 8,
    sftBatch: 8,
    sftMicro: 4,
    ppo: {
      tasks: 4,
      group: 8,
      concurrency: 8,
      turns: 6,
      tokens: 576,
      agentSec: 60,
      deadlineSec: 180,
      temperature: 0.7,
      advantage: 'group',
      schedule: 'constant',
      dynamicMaxTasks: 0,
    },
  },
  micro: {
    lr: 6e-4,
    sftLr: 3e-4,
    ppoLr: 6e-5,
    seqLen: 512,
    batch: 16,
    micro: 4,
    sftBatch: 16,
    sftMicro: 4,
    ppo: {
      tasks: 4,
      group: 4,
      concurrency: 4,
      turns: 8,
      tokens: 576,
      agentSec: 120,
      deadlineSec: 600,
      temperature: 1.0,
      advantage: 'gae',
      schedule: 'cosine',
      dynamicMaxTasks: 0,
    },
  },
} as const;

type Sizes = (typeof SIZES)[keyof typeof SIZES];

export function defaultConfigToml(o: DefaultConfigOptions): string {
  const s = SIZES[o.preset];
  return [
    headerSection(o),
    modelSection(o),
    dataSection(o),
    trainSection(o, s),
    optimizerSection(o, s),
    scheduleSection(o, s),
    checkpointSection(),
    lmSection(s),
    sftSection(),
    ppoSection(s),
  ].join('\n');
}

/** What the file is, how the command line overrides it, the stage and the seed. */
function headerSection(o: DefaultConfigOptions): string {
  return `# T1 Lab training run: stage "${o.stage}" (preset ${o.preset}).
# Every key is shown at its default; unknown keys are errors. On the command line, --model DIR,
# --data PATH, --steps N, --seed S and --checkpoint-every N override this file.

stage = "${o.stage}"
# Seeds data order and the held-out split: the same config and seed give the same loss curve.
seed = 0
`;
}

/** Where the weights come from: a checkpoint folder (LM: or a preset's fresh weights). */
function modelSection(o: DefaultConfigOptions): string {
  return `[model]
${modelSource(o)}
# Weights seed when starting from a preset.
init_seed = 0
`;
}

/** What the stage reads: text, SFT samples or a task suite, and the held-out share. */
function dataSection(o: DefaultConfigOptions): string {
  return `[data]
${dataSource(o.stage)}
# Share held out for the eval loss (picked by a hash of each document/sample).
eval_fraction = 0.05
# Longest sequence in tokens (0: the model's window).
max_seq_len = 0
`;
}

/** Steps, batch sizes, evaluation, the router's loss weight and the provider. */
function trainSection(o: DefaultConfigOptions, s: Sizes): string {
  return `[train]
# Optimizer steps.
steps = ${o.stage === 'lm' ? 300 : 200}
# Sequences per optimizer step; gradients accumulate over micro-batches of micro_batch_size.
batch_size = ${o.stage === 'sft' ? s.sftBatch : s.batch}
micro_batch_size = ${o.stage === 'sft' ? s.sftMicro : s.micro}
# Eval loss on the held-out split every N steps (0: only at the end), over eval_batches micro-batches.
eval_every = 50
eval_batches = 4
# Weight of the router's load-balancing loss.
aux_coef = 0.01
# Execution provider (auto: CUDA when it loads, else CPU) and onnxruntime threads (0: its default).
provider = "auto"
threads = 0
`;
}

/** AdamW at the stage's learning rate, clipping, frozen parameters and per-group settings. */
function optimizerSection(o: DefaultConfigOptions, s: Sizes): string {
  return `[optimizer]
# AdamW with fp32 master weights and decoupled weight decay (never on norms, biases or the router).
lr = ${stageLr(o.stage, s)}
beta1 = 0.9
beta2 = 0.95
eps = 1e-8
weight_decay = 0.1
# Global gradient-norm clipping (0: off).
grad_clip = 1.0
# Parameters not trained, as globs over tensor names (e.g. ["embed.weight", "layers.*.attn.*"]); an
# imported model also answers to its published names ("model.layers.*.self_attn.**").
freeze = []
# Per-group settings, first match wins, e.g.:
# [[optimizer.groups]]
# pattern = "value_head.*"
# lr_scale = 10.0
# [[optimizer.groups]]
# pattern = "layers.*.moe.router"
# lr_scale = 0.5
`;
}

/** The learning-rate schedule after its warm-up. */
function scheduleSection(o: DefaultConfigOptions, s: Sizes): string {
  return `[schedule]
# constant | linear | cosine, after a linear warm-up from 0.
kind = "${o.stage === 'ppo' ? s.ppo.schedule : 'cosine'}"
warmup_steps = 20
# Final learning rate as a share of optimizer.lr (linear, cosine).
min_lr_ratio = 0.1
`;
}

/** How often a training checkpoint is written and which are kept. */
function checkpointSection(): string {
  return `[checkpoint]
# A training checkpoint (weights, AdamW moments, step, data cursor) every N steps and at the end.
every = 50
# Checkpoints kept besides the best (lowest eval loss).
keep_last = 2
keep_best = true
`;
}

/** The LM stage's window length. */
function lmSection(s: Sizes): string {
  return `[lm]
# Tokens per training window (text is packed into windows of this length).
seq_len = ${s.seqLen}
`;
}

/** The SFT stage's suite evaluation and epoch limit. */
function sftSection(): string {
  return `[sft]
# Every N steps (a multiple of checkpoint.every; 0: off), run the newest checkpoint on a suite and log its
# resolved rate with a 95% interval.
eval_suite_every = 0
eval_suite = ""
# Tasks of the suite per eval (0: all).
eval_suite_tasks = 0
# Epochs over the samples at most (0: no limit; training also stops at train.steps).
max_epochs = 0
`;
}

/** PPO: the rollout budget, reward, advantages, the losses, TIS, R3 and the asynchronous pipeline. */
function ppoSection(s: Sizes): string {
  return `[ppo]
# train.steps counts PPO steps (a rollout batch and its update); data.path is the train task suite.
# Tasks sampled per step ("uniform" or "stratified" by category) and episodes per task (the group).
tasks_per_step = ${s.ppo.tasks}
group_size = ${s.ppo.group}
sampling = "uniform"
# Sandboxes at once; the policy worker decodes the active episodes in one batch.
concurrency = ${s.ppo.concurrency}
# The episode budget: turns, the agent's seconds and completion tokens per turn. Evaluate with the same
# budget (t1lab eval --max-turns ${s.ppo.turns} --max-tokens ${s.ppo.tokens} --agent-timeout ${s.ppo.agentSec}); without these keys
# the task's timeout and the policy's own token budget apply.
max_turns = ${s.ppo.turns}
agent_timeout_sec = ${s.ppo.agentSec}
max_tokens = ${s.ppo.tokens}
temperature = ${s.ppo.temperature.toFixed(1)}
# The training reward: "dense" (passed assertions), "fraction" or "binary"; normalised "none", "batch" or "group".
reward = "dense"
reward_norm = "none"
# "gae" (with the critic) or "group" (GRPO-style, no critic).
advantage = "${s.ppo.advantage}"
# Group advantages: reward minus the group mean, over the group's std ("group", GRPO), over one std of the
# batch's moving episodes ("batch": groups keep their reward differences' proportions) or as is ("none").
group_scale = "group"
gamma = 1.0
lambda = 1.0
# Whiten GAE advantages over the batch ("group" advantages are already a z-score within each group).
normalize_advantages = true
# Groups whose G episodes all got the same reward carry no policy signal: "skip" (zero advantage there,
# the critic still learns) or "train" (whitening then amplifies the critic's error into the policy).
flat_groups = "skip"
# Passes over each batch, and optimizer steps (minibatches) per pass.
epochs = 2
minibatches = 2
# Clipped surrogate (separate low and high clip), clipped value loss, entropy bonus, k3 KL to the initial policy.
clip_low = 0.2
clip_high = 0.28
# The value head predicts returns standardised by running statistics ("running"), so the value loss and
# vf_clip do not scale with the reward; "off" regresses raw returns.
value_norm = "running"
vf_clip = 0.2
vf_coef = 0.5
ent_coef = 0.0
kl_coef = 0.0
# Truncated importance sampling: min(exp(logp_trainer_old - logp_sampler), tis_cap) per token.
tis = "on"
tis_cap = 2.0
# Rollout routing replay on every token; exact token-in/token-out ("retokenize": the ablation).
r3 = "on"
tito = "exact"
# Steps that train only the value head on the initial policy's rollouts.
critic_warmup_steps = 0
# Rollouts of step t+1 run while step t trains; samples lag at most max_staleness policy versions.
async = true
max_staleness = 1
# Over-sampling: start N(1 + oversample) episodes, train on the first N; the rest get abort_grace_sec.
oversample = 0.0
# Dynamic sampling (DAPO): 0 is off; N keeps drawing tasks until tasks_per_step groups disagree on the reward
# (at most N tasks a step) and trains on those groups only. Needs oversample = 0.
dynamic_max_tasks = ${s.ppo.dynamicMaxTasks}
abort_grace_sec = 0.0
# An episode still running at the deadline is cut (not trained on); one not ended 60 s later is given up.
episode_deadline_sec = ${s.ppo.deadlineSec}.0
# Also score with free routing each step (the gap without R3 and routing agreement per layer).
measure_free_gap = true
# Container tasks' episodes on engine hosts (\`t1lab hosts list\`), each in a free slot as \`eval --hosts\` places
# them: ["gpu1", "gpu2"] or "all"; absent: this machine. An episode no host could run is not trained on.
# hosts = ["gpu1", "gpu2"]
`;
}

/** The stage's learning rate at this preset. */
function stageLr(stage: Stage, s: Sizes): number {
  return stage === 'lm' ? s.lr : stage === 'sft' ? s.sftLr : s.ppoLr;
}

/** `data.path` with its comment: what the stage reads. */
function dataSource(stage: Stage): string {
  return stage === 'lm'
    ? '# Text files, folders of them, SFT sample files (.jsonl: their ids are used) or "builtin": the lab\'s own\n# offline corpus (man pages of host shell tools, the built-in tasks as agent transcripts, docs).\npath = "builtin"'
    : stage === 'sft'
      ? '# SFT sample files from `t1lab tasks sft-data` (.jsonl, or a folder of them).\npath = "sft.jsonl"'
      : '# The task suite PPO trains on (a task folder, a folder of tasks, or a pack).\npath = "tasks/examples"';
}

/** `model.checkpoint` with its comment: LM starts from `model init`'s folder, later stages from the stage before. */
function modelSource(o: DefaultConfigOptions): string {
  return o.stage === 'lm'
    ? `# Start from a checkpoint folder (\`t1lab model init --preset ${o.preset} --out ./${o.preset}\`)...\ncheckpoint = "./${o.preset}"\n# ...or from fresh weights of a preset (then remove \`checkpoint\`): preset = "${o.preset}"`
    : `# The checkpoint to train (the LM stage's final checkpoint, or \`t1lab model init\` output).\ncheckpoint = "./${o.preset}-lm"`;
}
