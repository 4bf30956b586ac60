package dev.spanprof.ingest.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.rpc.Code;
import com.google.rpc.RetryInfo;
import com.google.rpc.Status;
import dev.spanprof.testing.Otlp;
import io.micronaut.http.HttpHeaders;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MutableHttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class OtlpHttpResponsesTest {

  /** A refusal with a retry delay carries RetryInfo in its status, in JSON as in protobuf. */
  @Test
  void error_withRetryDelay_inJsonAndProtobuf_carriesRetryInfo() throws Exception {
    for (boolean json : new boolean[] {true, false}) {
      MutableHttpResponse<byte[]> response = OtlpHttpResponses.error(HttpStatus.TOO_MANY_REQUESTS,
          json, Code.RESOURCE_EXHAUSTED, "the span buffer is full", Duration.ofMillis(1_500));

      Status status = json ? Otlp.jsonStatus(response.body()) : Status.parseFrom(response.body());
      assertThat(response.code()).isEqualTo(429);
      assertThat(response.header(HttpHeaders.RETRY_AFTER)).as("whole seconds, rounded up").isEqualTo("2");
      assertThat(status.getCode()).isEqualTo(Code.RESOURCE_EXHAUSTED_VALUE);
      assertThat(status.getMessage()).isEqualTo("the span buffer is full");
      assertThat(status.getDetails(0).unpack(RetryInfo.class).getRetryDelay())
          .isEqualTo(com.google.protobuf.Duration.newBuilder().setSeconds(1).setNanos(500_000_000).build());
    }
  }
}
