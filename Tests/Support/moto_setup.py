#!/usr/bin/env python3
"""Sets up a moto server (started with INITIAL_NO_AUTH_ACTION_COUNT=3) for the remote cache tests.

Usage: moto_setup.py ENDPOINT BUCKET
Through moto's IAM API, with the set-up's unauthenticated actions (exactly 3): creates a user,
its access key and an inline policy allowing every S3 action. Then, signed with that key (auth is
enforced from then on), creates BUCKET. Prints the access key id and the secret, one per line.
"""
import json
import sys

import boto3


def main():
    endpoint, bucket = sys.argv[1], sys.argv[2]
    boot = dict(endpoint_url=endpoint, region_name="us-east-1",
                aws_access_key_id="AKIASETUPSETUPSETUP0", aws_secret_access_key="setup")
    iam = boto3.client("iam", **boot)
    iam.create_user(UserName="imgfetch")                                    # 1
    key = iam.create_access_key(UserName="imgfetch")["AccessKey"]           # 2
    policy = {"Version": "2012-10-17",
              "Statement": [{"Effect": "Allow", "Action": "s3:*", "Resource": "*"}]}
    iam.put_user_policy(UserName="imgfetch", PolicyName="s3-all",          # 3
                        PolicyDocument=json.dumps(policy))
    s3 = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1",
                      aws_access_key_id=key["AccessKeyId"], aws_secret_access_key=key["SecretAccessKey"])
    s3.create_bucket(Bucket=bucket)
    print(key["AccessKeyId"])
    print(key["SecretAccessKey"])


if __name__ == "__main__":
    main()
