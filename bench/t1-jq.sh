#!/usr/bin/env bash
# The comparison job "T1" with jq and gzip, as far as jq can express it.
#
#   bench/t1-jq.sh OUTDIR events.ndjson
#
# One jq scrubs (lines that are not JSON objects are skipped with `fromjson?`,
# since jq would otherwise stop at the first one), then `tee` feeds two more jq
# processes that shape Mixpanel and Amplitude records; each output is
# compressed by `gzip -6`. What jq cannot do, left out:
# - HMAC-SHA-256: jq has no hash functions, so traits.email and
#   properties.user_email are deleted instead of pseudonymized;
# - rejected lines are skipped, not written with a reason; the input checks
#   are approximate (a string type, an identity, a parseable timestamp);
# - IPv6 addresses are not truncated (regex on IPv4 only);
# - time is whole seconds (fromdateiso8601 refuses fractions), insert ids are
#   the messageId, not a hash; no string limits.
set -euo pipefail
out=$1
input=$2
mkdir -p "$out/archive" "$out/mixpanel" "$out/amplitude"

scrub='fromjson? | select(type == "object")
  | select((.type | type) == "string" and ((.anonymousId // .userId) | type) == "string"
           and ((.timestamp | type) == "string") and (try (.timestamp | sub("\\.[0-9]+"; "") | fromdateiso8601 | true) catch false))
  | if (.context.ip | type) == "string" then .context.ip |= sub("\\.[0-9]+$"; ".0") else . end
  | if (.traits | type) == "object" then del(.traits.email) else . end
  | if (.properties | type) == "object" then
      del(.properties.user_email)
      | if (.properties.text | type) == "string"
        then .properties.text |= gsub("[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(\\.[A-Za-z0-9-]+)*\\.[A-Za-z]{2,}"; "[email]")
        else . end
    else . end'

names='def name: if .type == "track" then .event
    elif .type == "screen" then "Viewed \(.name // "") Screen"
    else "Viewed \(.name // "") Page" end;
  def millis: (.timestamp | sub("\\.[0-9]+"; "") | fromdateiso8601) * 1000;'

mixpanel="$names"' select(.type == "track" or .type == "screen" or .type == "page")
  | {event: name, properties: ({time: millis, distinct_id: (.userId // .anonymousId), "$insert_id": .messageId,
      "$device_id": .anonymousId, "$os": .context.os.name, "$os_version": .context.os.version,
      "$model": .context.device.model, "$manufacturer": .context.device.manufacturer,
      "$app_version_string": .context.app.version, ip: .context.ip} + (.properties // {}))}'

amplitude="$names"' select(.type == "track" or .type == "screen" or .type == "page" or .type == "identify")
  | {event_type: (if .type == "identify" then "$identify" else name end), user_id: .userId, device_id: .anonymousId,
     time: millis, session_id: -1, insert_id: .messageId}
    + (if .type == "identify" then {user_properties: {"$set": (.traits // {})}} else {event_properties: (.properties // {})} end)
    + {platform: .context.os.name, os_name: .context.os.name, os_version: .context.os.version,
       device_model: .context.device.model, app_version: .context.app.version, ip: .context.ip}'

jq -R -c "$scrub" "$input" \
  | tee >(jq -c "$mixpanel" | gzip -6 > "$out/mixpanel/mixpanel.ndjson.gz") \
        >(jq -c "$amplitude" | gzip -6 > "$out/amplitude/amplitude.ndjson.gz") \
  | gzip -6 > "$out/archive/archive.ndjson.gz"
# Wait for the process substitutions to finish writing.
wait
