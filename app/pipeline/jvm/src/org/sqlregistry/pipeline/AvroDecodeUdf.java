package org.sqlregistry.pipeline;

import java.util.concurrent.ConcurrentHashMap;

import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.api.java.UDF2;

/**
 * Spark SQL function: (framed Avro bytes, plan file name) -> struct(value, error).
 *
 * The plan (reader schema, each writer header's schema resolved on the driver) travels to the
 * executors as a file added with SparkContext.addFile, so the per-row argument is only its short
 * name; each executor JVM parses a plan once and keeps it for every task that names it.
 * A record's fault becomes the error string, never an exception: the Python side decides
 * whether it fails the job (with the record's position) or is routed.
 */
public final class AvroDecodeUdf implements UDF2<byte[], String, Row> {
    private static final long serialVersionUID = 1L;
    private static final ConcurrentHashMap<String, DecodePlan> PLANS = new ConcurrentHashMap<>();

    @Override
    public Row call(byte[] data, String planName) {
        if (data == null) {
            return null;
        }
        DecodePlan plan = PLANS.computeIfAbsent(planName, name -> new DecodePlan(PlanFiles.read(name, "decode")));
        DecodePlan.Result result = plan.decode(data);
        return RowFactory.create(result.value, result.error);
    }
}
