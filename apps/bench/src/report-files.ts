import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { MachineInfo } from './machine.js';
import type { BenchReport, RatioReport, VariantReport } from './report.js';
import type { ParamValue } from './scenario.js';
import type { SourceCommit } from './source-commit.js';

/** A JSON report read back, with the file it came from. */
export interface LoadedReport {
  file: string;
  report: BenchReport;
}

/** What `loadReports` found: the reports, and the JSON files it passed over and why. */
export interface LoadedReports {
  reports: LoadedReport[];
  skipped: { file: string; reason: string }[];
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function num(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

function numbers(value: unknown): number[] {
  return Array.isArray(value) ? value.filter((v): v is number => num(v) !== undefined) : [];
}

function summary(value: Json): { median: number; min: number; max: number } | undefined {
  const median = num(value.median);
  const min = num(value.min);
  const max = num(value.max);
  return median === undefined || min === undefined || max === undefined
    ? undefined
    : { median, min, max };
}

function variant(value: unknown): VariantReport | undefined {
  if (!isObject(value) || typeof value.name !== 'string') return undefined;
  const s = summary(value);
  if (!s) return undefined;
  const samples: Record<string, number[]> = {};
  if (isObject(value.samples)) {
    for (const [key, list] of Object.entries(value.samples)) samples[key] = numbers(list);
  }
  return {
    name: value.name,
    unit: typeof value.unit === 'string' ? value.unit : '',
    // Reports before 2026-12 did not say; most variants are throughputs.
    higherIsBetter: typeof value.higherIsBetter === 'boolean' ? value.higherIsBetter : true,
    ...s,
    values: numbers(value.values),
    samples,
  };
}

function ratio(value: unknown, variants: readonly VariantReport[]): RatioReport | undefined {
  if (!isObject(value) || typeof value.name !== 'string') return undefined;
  const s = summary(value);
  if (!s) return undefined;
  const name = value.name;
  const first = variants.find((v) => v.name === name.split('/')[0]);
  const target = num(value.target);
  return {
    name,
    higherIsBetter:
      typeof value.higherIsBetter === 'boolean'
        ? value.higherIsBetter
        : (first?.higherIsBetter ?? true),
    ...s,
    values: numbers(value.values),
    ...(target === undefined ? {} : { target }),
  };
}

function isParamValue(value: unknown): value is ParamValue {
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
    return true;
  }
  return (
    Array.isArray(value) &&
    (value.every((v) => typeof v === 'number') || value.every((v) => typeof v === 'string'))
  );
}

function machine(value: unknown): MachineInfo {
  const m = isObject(value) ? value : {};
  const text = (key: string): string => (typeof m[key] === 'string' ? m[key] : '');
  return {
    hostname: text('hostname'),
    cpus: num(m.cpus) ?? 0,
    cpuModel: text('cpuModel'),
    node: text('node'),
    totalMemory: num(m.totalMemory) ?? 0,
    platform: text('platform'),
    arch: text('arch'),
    release: text('release'),
  };
}

function commit(value: unknown): SourceCommit | null {
  return isObject(value) && typeof value.sha === 'string'
    ? { sha: value.sha, dirty: value.dirty === true }
    : null;
}

/**
 * Reads a report, tolerating the fields older reports lack (timestamp,
 * commit, raw values: the file's modification time, null, none). Throws a
 * one-line reason when the JSON is not a bench report at all.
 */
export function parseReport(json: unknown, fallbackTimestamp: string): BenchReport {
  if (!isObject(json) || typeof json.scenario !== 'string') throw new Error('no "scenario"');
  if (!Array.isArray(json.variants)) throw new Error('no "variants" list');
  const variants: VariantReport[] = [];
  for (const v of json.variants) {
    const parsed = variant(v);
    if (!parsed) throw new Error('a variant without name, median, min and max');
    variants.push(parsed);
  }
  const ratios: RatioReport[] = [];
  for (const r of Array.isArray(json.ratios) ? json.ratios : []) {
    const parsed = ratio(r, variants);
    if (!parsed) throw new Error('a ratio without name, median, min and max');
    ratios.push(parsed);
  }
  const params: Record<string, ParamValue> = {};
  if (isObject(json.params)) {
    for (const [key, value] of Object.entries(json.params)) {
      if (isParamValue(value)) params[key] = value;
    }
  }
  const metrics: Record<string, number> = {};
  if (isObject(json.metrics)) {
    for (const [key, value] of Object.entries(json.metrics)) {
      const n = num(value);
      if (n !== undefined) metrics[key] = n;
    }
  }
  const timestamp =
    typeof json.timestamp === 'string' && !Number.isNaN(Date.parse(json.timestamp))
      ? json.timestamp
      : fallbackTimestamp;
  return {
    scenario: json.scenario,
    description: typeof json.description === 'string' ? json.description : '',
    timestamp,
    commit: commit(json.commit),
    params,
    machine: machine(json.machine),
    variants,
    ratios,
    metrics,
  };
}

async function jsonFilesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const files: string[] = [];
  for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) files.push(...(await jsonFilesUnder(full)));
    else if (entry.isFile() && entry.name.endsWith('.json')) files.push(full);
  }
  return files;
}

/**
 * Loads the JSON reports named by `inputs`: files, or directories searched
 * recursively for `*.json`. A JSON file that is not a bench report is
 * skipped with its reason; a missing input throws.
 */
export async function loadReports(inputs: readonly string[]): Promise<LoadedReports> {
  const files: string[] = [];
  for (const input of inputs) {
    const info = await stat(input);
    files.push(...(info.isDirectory() ? await jsonFilesUnder(input) : [input]));
  }
  const loaded: LoadedReports = { reports: [], skipped: [] };
  for (const file of files) {
    try {
      const text = await readFile(file, 'utf8');
      const { mtime } = await stat(file);
      loaded.reports.push({ file, report: parseReport(JSON.parse(text), mtime.toISOString()) });
    } catch (error) {
      loaded.skipped.push({ file, reason: error instanceof Error ? error.message : String(error) });
    }
  }
  return loaded;
}
