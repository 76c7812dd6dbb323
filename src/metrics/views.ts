// Opt-in OTLP views: the same data under names other tools already query, pushed next to our own
// metrics (never on /metrics).
//
// - `otel.semconv: genai`: the OpenTelemetry GenAI semantic conventions. By default the
//   gen_ai.client.token.usage histogram of semantic-conventions v1.41.0 (docs/gen-ai/
//   gen-ai-metrics.md); with OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental, as the
//   conventions' transition plan says, only the newer instruments of semantic-conventions-genai
//   (docs/gen-ai/gen-ai-token-metrics.md): gen_ai.client.inference.usage.* counters and the
//   gen_ai.client.inference.operation.* histograms.
// - `otel.compat: claude-code`: the instruments of Claude Code's own telemetry (token, cost,
//   session and lines-of-code counters with its attribute values), for every harness, with a
//   `harness` attribute, so dashboards made for Claude Code's metrics work unchanged.

import { ValueType, type Attributes, type HrTime } from '@opentelemetry/api';
import { resourceFromAttributes, type Resource } from '@opentelemetry/resources';
import {
  AggregationTemporality,
  DataPointType,
  type CollectionResult,
  type MetricData,
  type MetricProducer,
} from '@opentelemetry/sdk-metrics';
import type { RequestTokens } from '../store/store.js';
import { REQUEST_TOKEN_BOUNDARIES } from '../session/vocabulary.js';
import { hrTime, resourceMetrics, toMetricData, type Starts } from './producer.js';
import type { Family } from './snapshot.js';

export interface Views {
  semconv: '' | 'genai';
  /** OTEL_SEMCONV_STABILITY_OPT_IN lists gen_ai_latest_experimental. */
  genaiLatest: boolean;
  compat: '' | 'claude-code';
}

export interface ViewInputs {
  families: Family[];
  requestTokens: Iterable<RequestTokens>;
  /** The price table's provider of a model. */
  providerOf: (model: string) => string | undefined;
}

/** OTEL_SEMCONV_STABILITY_OPT_IN is a comma-separated list of category values. */
export function genaiLatest(env: NodeJS.ProcessEnv): boolean {
  return (env.OTEL_SEMCONV_STABILITY_OPT_IN ?? '')
    .split(',')
    .map((v) => v.trim())
    .includes('gen_ai_latest_experimental');
}

// Price-table provider ids that have a well-known gen_ai.provider.name of their own; others are
// sent as the table names them (the conventions allow custom values), unknown models as `unknown`.
const PROVIDER_NAMES: Record<string, string> = {
  anthropic: 'anthropic',
  openai: 'openai',
  google: 'gcp.gen_ai',
  aws: 'aws.bedrock',
  azure: 'azure.ai.openai',
  cohere: 'cohere',
  deepseek: 'deepseek',
  groq: 'groq',
  mistral: 'mistral_ai',
  moonshotai: 'moonshot_ai',
  perplexity: 'perplexity',
  'x-ai': 'x_ai',
};

/** Adds points with the same attributes (a view drops labels such as project). */
function summed(points: { attributes: Attributes; value: number }[]) {
  const out = new Map<string, { attributes: Attributes; value: number }>();
  for (const p of points) {
    const k = JSON.stringify(p.attributes);
    const have = out.get(k);
    if (have) have.value += p.value;
    else out.set(k, { ...p });
  }
  return [...out.values()];
}

function counter(
  name: string,
  unit: string,
  description: string,
  points: { attributes: Attributes; value: number }[],
  start: HrTime,
  end: HrTime,
): MetricData {
  return {
    descriptor: { name, unit, description, valueType: ValueType.DOUBLE },
    aggregationTemporality: AggregationTemporality.CUMULATIVE,
    dataPointType: DataPointType.SUM,
    isMonotonic: true,
    dataPoints: summed(points).map((p) => ({
      startTime: start,
      endTime: end,
      attributes: p.attributes,
      value: p.value,
    })),
  };
}

function histogram(
  name: string,
  description: string,
  points: { attributes: Attributes; h: RequestTokens }[],
  start: HrTime,
  end: HrTime,
): MetricData {
  return {
    descriptor: { name, unit: '{token}', description, valueType: ValueType.INT },
    aggregationTemporality: AggregationTemporality.CUMULATIVE,
    dataPointType: DataPointType.HISTOGRAM,
    dataPoints: points.map(({ attributes, h }) => ({
      startTime: start,
      endTime: end,
      attributes,
      value: {
        buckets: { boundaries: [...REQUEST_TOKEN_BOUNDARIES], counts: [...h.counts] },
        sum: h.sum,
        count: h.counts.reduce((a, n) => a + n, 0),
      },
    })),
  };
}

const points = (families: Family[], name: string) => families.find((f) => f.def.name === name)?.points ?? [];

function genai(inputs: ViewInputs, latest: boolean, start: HrTime, end: HrTime): MetricData[] {
  const provider = (model: string) => {
    const id = inputs.providerOf(model);
    return id === undefined ? 'unknown' : (PROVIDER_NAMES[id] ?? id);
  };
  const common = (harness: string, model: string): Attributes => ({
    'gen_ai.operation.name': 'chat',
    'gen_ai.provider.name': provider(model),
    'gen_ai.request.model': model,
    harness,
  });
  const requests = [...inputs.requestTokens];
  if (!latest) {
    return [
      histogram(
        'gen_ai.client.token.usage',
        'Number of input and output tokens used per model request.',
        requests.map((h) => ({ attributes: { ...common(h.harness, h.model), 'gen_ai.token.type': h.type }, h })),
        start,
        end,
      ),
    ];
  }
  // Usage counters by token category, broken down by modality, which no harness records.
  const usage = (labels: Record<string, string>) => ({
    ...common(labels.harness!, labels.model!),
    'gen_ai.token.modality': 'unknown',
  });
  const tokens = points(inputs.families, 'coding_agent_tokens');
  const ofType = (...types: string[]) =>
    tokens
      .filter((p) => types.includes(p.labels.token_type!))
      .map((p) => ({ attributes: usage(p.labels), value: p.value }));
  const reasoning = points(inputs.families, 'coding_agent_reasoning_tokens').map((p) => ({
    attributes: usage(p.labels),
    value: p.value,
  }));
  const perOperation = (type: RequestTokens['type']) =>
    requests.filter((h) => h.type === type).map((h) => ({ attributes: common(h.harness, h.model), h }));
  return [
    counter(
      'gen_ai.client.inference.usage.input_tokens',
      '{token}',
      'The number of input (prompt) tokens used, including cached tokens.',
      ofType('input', 'cache_read', 'cache_write'),
      start,
      end,
    ),
    counter(
      'gen_ai.client.inference.usage.output_tokens',
      '{token}',
      'The number of output (completion) tokens used, including reasoning tokens.',
      ofType('output'),
      start,
      end,
    ),
    counter(
      'gen_ai.client.inference.usage.cache_read.input_tokens',
      '{token}',
      'The number of input tokens read from a provider-managed cache.',
      ofType('cache_read'),
      start,
      end,
    ),
    counter(
      'gen_ai.client.inference.usage.cache_write.input_tokens',
      '{token}',
      'The number of input tokens written to a provider-managed cache.',
      ofType('cache_write'),
      start,
      end,
    ),
    counter(
      'gen_ai.client.inference.usage.reasoning.output_tokens',
      '{token}',
      'The number of output tokens used for reasoning.',
      reasoning,
      start,
      end,
    ),
    histogram(
      'gen_ai.client.inference.operation.input_tokens',
      'The number of input (prompt) tokens used per inference operation.',
      perOperation('input'),
      start,
      end,
    ),
    histogram(
      'gen_ai.client.inference.operation.output_tokens',
      'The number of output (completion) tokens used per inference operation.',
      perOperation('output'),
      start,
      end,
    ),
  ];
}

/** Claude Code's `type` values for our token types. */
const CLAUDE_TOKEN_TYPES: Record<string, string> = {
  input: 'input',
  output: 'output',
  cache_read: 'cacheRead',
  cache_write: 'cacheCreation',
};

function claudeCode(families: Family[], start: HrTime, end: HrTime): MetricData[] {
  const from = (name: string, attrs: (l: Record<string, string>) => Attributes) =>
    points(families, name).map((p) => ({ attributes: attrs(p.labels), value: p.value }));
  return [
    counter(
      'claude_code.token.usage',
      'tokens',
      'Number of tokens used',
      from('coding_agent_tokens', (l) => ({
        type: CLAUDE_TOKEN_TYPES[l.token_type!]!,
        model: l.model!,
        harness: l.harness!,
      })),
      start,
      end,
    ),
    counter(
      'claude_code.cost.usage',
      'USD',
      'Cost of the session',
      from('coding_agent_cost_usd', (l) => ({ model: l.model!, harness: l.harness! })),
      start,
      end,
    ),
    counter(
      'claude_code.session.count',
      'count',
      'Count of CLI sessions started',
      from('coding_agent_sessions_started', (l) => ({ harness: l.harness! })),
      start,
      end,
    ),
    counter(
      'claude_code.lines_of_code.count',
      'count',
      'Count of lines of code modified',
      [
        ...from('coding_agent_lines_added', (l) => ({ type: 'added', harness: l.harness! })),
        ...from('coding_agent_lines_removed', (l) => ({ type: 'removed', harness: l.harness! })),
      ],
      start,
      end,
    ),
  ];
}

/** The views' metrics for one snapshot; empty views give no metric at all. */
export function viewMetrics(views: Views, inputs: ViewInputs, startMs: number, nowMs: number): MetricData[] {
  const [start, end] = [hrTime(startMs), hrTime(nowMs)];
  return [
    ...(views.semconv === 'genai' ? genai(inputs, views.genaiLatest, start, end) : []),
    ...(views.compat === 'claude-code' ? claudeCode(inputs.families, start, end) : []),
  ].filter((m) => m.dataPoints.length > 0);
}

/**
 * The OTLP producer: exactly the current snapshot on each collection, then the views'. It never
 * throws: a failure comes back in `errors`.
 */
export class ViewsProducer implements MetricProducer {
  constructor(
    private readonly inputs: () => ViewInputs,
    private readonly views: Views,
    private readonly starts: Starts,
    private readonly resource: Resource = resourceFromAttributes({}),
  ) {}

  async collect(): Promise<CollectionResult> {
    try {
      const now = Date.now();
      const inputs = this.inputs();
      // The views are made of the database's totals.
      const metrics = [
        ...toMetricData(inputs.families, this.starts, now),
        ...viewMetrics(this.views, inputs, this.starts.totalsMs, now),
      ];
      return { resourceMetrics: resourceMetrics(this.resource, metrics), errors: [] };
    } catch (e) {
      return { resourceMetrics: resourceMetrics(this.resource, []), errors: [e] };
    }
  }
}
