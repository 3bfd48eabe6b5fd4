package tracing

import (
	"context"
	"errors"
	"net"

	"github.com/redis/go-redis/v9"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// RedisHook returns a go-redis hook (see rediscache.Cache.AddHook) that
// starts a client span for each command ("redis get") and pipeline
// ("redis pipeline", with the number of commands) that the page cache
// sends, a child of the span in the call's context; nil without tracing.
// A miss (redis.Nil) is no error.
func (t *Tracing) RedisHook() redis.Hook {
	if t == nil {
		return nil
	}
	return redisHook{t}
}

type redisHook struct{ t *Tracing }

func (h redisHook) DialHook(next redis.DialHook) redis.DialHook {
	return func(ctx context.Context, network, addr string) (net.Conn, error) { return next(ctx, network, addr) }
}

func (h redisHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		ctx, span := h.t.tracer.Start(ctx, "redis "+cmd.Name(), trace.WithSpanKind(trace.SpanKindClient),
			trace.WithAttributes(attribute.String("db.system.name", "redis")))
		defer span.End()
		err := next(ctx, cmd)
		end(span, err)
		return err
	}
}

func (h redisHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		ctx, span := h.t.tracer.Start(ctx, "redis pipeline", trace.WithSpanKind(trace.SpanKindClient),
			trace.WithAttributes(attribute.String("db.system.name", "redis"), attribute.Int("db.operation.batch.size", len(cmds))))
		defer span.End()
		err := next(ctx, cmds)
		end(span, err)
		return err
	}
}

// end marks span failed by err, unless err is nil or a miss.
func end(span trace.Span, err error) {
	if err != nil && !errors.Is(err, redis.Nil) {
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
	}
}
