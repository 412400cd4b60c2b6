// RecloserModule: one Recloser per worker process as a global provider, a Breaker provider per
// declared dependency, and a clean stop when the application closes (no heartbeat leaves after
// app.close(), probe calls in flight finish and their results reach the controller first).
import {
  Inject,
  Injectable,
  Module,
  type DynamicModule,
  type FactoryProvider,
  type InjectionToken,
  type ModuleMetadata,
  type OnApplicationShutdown,
  type OptionalFactoryDependency,
  type Provider,
} from '@nestjs/common';
import { createRecloser, Recloser, type BreakerOptions, type RecloserOptions } from '@recloser/client';
import { breakerToken, RECLOSER_MODULE_OPTIONS } from './tokens.js';

/** Dependencies by name, each with its breaker options, or just their names. */
export type BreakerDeclarations = readonly string[] | Readonly<Record<string, BreakerOptions>>;

export type RecloserModuleOptions = RecloserOptions & {
  /**
   * how long application shutdown lets probe calls in flight finish and post their results
   * (releasing their tokens) before aborting; default 5000 ms
   */
  shutdownGraceMs?: number;
};

export interface RecloserModuleAsyncOptions extends Pick<ModuleMetadata, 'imports'> {
  useFactory: (...args: never[]) => RecloserModuleOptions | Promise<RecloserModuleOptions>;
  inject?: (InjectionToken | OptionalFactoryDependency)[];
  /** the breakers to provide (names are needed before the factory runs) */
  breakers?: BreakerDeclarations;
}

export const DEFAULT_SHUTDOWN_GRACE_MS = 5_000;

function declarations(breakers: BreakerDeclarations | undefined): [string, BreakerOptions][] {
  if (breakers === undefined) return [];
  if (Array.isArray(breakers)) return (breakers as readonly string[]).map((name) => [name, {}]);
  return Object.entries(breakers as Readonly<Record<string, BreakerOptions>>);
}

function breakerProviders(breakers: BreakerDeclarations | undefined): FactoryProvider[] {
  return declarations(breakers).map(([dependency, options]) => ({
    provide: breakerToken(dependency),
    useFactory: (recloser: Recloser) => recloser.breaker(dependency, options),
    inject: [Recloser],
  }));
}

/** Closes the Recloser when the application shuts down. */
@Injectable()
export class RecloserShutdown implements OnApplicationShutdown {
  constructor(
    private readonly recloser: Recloser,
    @Inject(RECLOSER_MODULE_OPTIONS) private readonly options: RecloserModuleOptions,
  ) {}

  async onApplicationShutdown(): Promise<void> {
    await this.recloser.close({ graceMs: this.options.shutdownGraceMs ?? DEFAULT_SHUTDOWN_GRACE_MS });
  }
}

const recloserProvider: FactoryProvider = {
  provide: Recloser,
  useFactory: (options: RecloserModuleOptions) => {
    const { shutdownGraceMs: _grace, ...client } = options;
    return createRecloser(client as RecloserOptions);
  },
  inject: [RECLOSER_MODULE_OPTIONS],
};

@Module({})
export class RecloserModule {
  /** The Recloser for this process, global; `breakers` become injectable (@InjectBreaker(name)). */
  static forRoot(options: RecloserModuleOptions & { breakers?: BreakerDeclarations }): DynamicModule {
    const { breakers, ...recloser } = options;
    return RecloserModule.root([{ provide: RECLOSER_MODULE_OPTIONS, useValue: recloser }], breakers, []);
  }

  /** forRoot with options from a factory (ConfigService and the like). */
  static forRootAsync(options: RecloserModuleAsyncOptions): DynamicModule {
    return RecloserModule.root(
      [
        {
          provide: RECLOSER_MODULE_OPTIONS,
          useFactory: options.useFactory as (...args: unknown[]) => unknown,
          inject: options.inject ?? [],
        },
      ],
      options.breakers,
      options.imports ?? [],
    );
  }

  /** More injectable breakers, for a feature module (the Recloser comes from forRoot). */
  static forFeature(breakers: BreakerDeclarations): DynamicModule {
    const providers = breakerProviders(breakers);
    return { module: RecloserModule, providers, exports: providers.map((p) => p.provide) };
  }

  private static root(
    optionsProviders: Provider[],
    breakers: BreakerDeclarations | undefined,
    imports: NonNullable<ModuleMetadata['imports']>,
  ): DynamicModule {
    const perDependency = breakerProviders(breakers);
    return {
      module: RecloserModule,
      global: true,
      imports,
      providers: [...optionsProviders, recloserProvider, RecloserShutdown, ...perDependency],
      exports: [Recloser, RECLOSER_MODULE_OPTIONS, ...perDependency.map((p) => p.provide)],
    };
  }
}
