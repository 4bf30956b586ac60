/*
 * The JNI side of dev.spanprof.export.IsalGzip: gzip through ISA-L's igzip (libisal), which
 * compresses OTLP requests at level 1 about six times faster than zlib does, to the same size
 * (BENCHMARKS.md). Built by the service's "isal" Maven profile where ISA-L's headers are
 * installed (Debian's libisal-dev); the Java side falls back to the JDK's zlib without it.
 *
 * One compressor is one isal_zstream and its level-1 hash buffer (about 360 KB), made once and
 * reset per stream: the Java side pools them.
 */
#include <jni.h>
#include <stdint.h>
#include <stdlib.h>
#include <isa-l/igzip_lib.h>

typedef struct {
  struct isal_zstream stream;
  uint8_t level_buf[ISAL_DEF_LVL1_DEFAULT];
} compressor;

static void start(compressor *c) {
  c->stream.level = 1;
  c->stream.level_buf = c->level_buf;
  c->stream.level_buf_size = sizeof c->level_buf;
  c->stream.gzip_flag = IGZIP_GZIP;
  c->stream.flush = NO_FLUSH;
}

JNIEXPORT jlong JNICALL Java_dev_spanprof_export_IsalGzip_create(JNIEnv *env, jclass cls) {
  compressor *c = malloc(sizeof *c);
  if (c == NULL) {
    return 0;
  }
  isal_deflate_init(&c->stream);
  start(c);
  return (jlong) (intptr_t) c;
}

JNIEXPORT void JNICALL Java_dev_spanprof_export_IsalGzip_reset(JNIEnv *env, jclass cls,
    jlong handle) {
  compressor *c = (compressor *) (intptr_t) handle;
  isal_deflate_reset(&c->stream);
  start(c);
}

/*
 * Compresses in[inOffset, inOffset + inLength) into out[outOffset, outOffset + outLength), the
 * end of the gzip stream once `finish` is set (then with no further input). Returns the bytes
 * consumed (bits 0-30), the bytes produced (bits 31-61) and whether the stream is complete (bit
 * 62); or ISA-L's negative error code.
 */
JNIEXPORT jlong JNICALL Java_dev_spanprof_export_IsalGzip_deflate(JNIEnv *env, jclass cls,
    jlong handle, jbyteArray in, jint inOffset, jint inLength, jbyteArray out, jint outOffset,
    jint outLength, jboolean finish) {
  compressor *c = (compressor *) (intptr_t) handle;
  uint8_t *input = (*env)->GetPrimitiveArrayCritical(env, in, NULL);
  if (input == NULL) {
    return ISAL_INVALID_OPERATION;
  }
  uint8_t *output = (*env)->GetPrimitiveArrayCritical(env, out, NULL);
  if (output == NULL) {
    (*env)->ReleasePrimitiveArrayCritical(env, in, input, JNI_ABORT);
    return ISAL_INVALID_OPERATION;
  }
  c->stream.next_in = input + inOffset;
  c->stream.avail_in = (uint32_t) inLength;
  c->stream.next_out = output + outOffset;
  c->stream.avail_out = (uint32_t) outLength;
  c->stream.end_of_stream = finish ? 1 : 0;
  int status = isal_deflate(&c->stream);
  jlong consumed = inLength - (jlong) c->stream.avail_in;
  jlong produced = outLength - (jlong) c->stream.avail_out;
  jlong complete = c->stream.internal_state.state == ZSTATE_END ? 1 : 0;
  (*env)->ReleasePrimitiveArrayCritical(env, out, output, 0);
  (*env)->ReleasePrimitiveArrayCritical(env, in, input, JNI_ABORT);
  if (status != COMP_OK) {
    return status < 0 ? status : ISAL_INVALID_OPERATION;
  }
  return consumed | (produced << 31) | (complete << 62);
}

JNIEXPORT void JNICALL Java_dev_spanprof_export_IsalGzip_free(JNIEnv *env, jclass cls,
    jlong handle) {
  free((compressor *) (intptr_t) handle);
}
